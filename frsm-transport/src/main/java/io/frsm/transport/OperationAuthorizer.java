package io.frsm.transport;

import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.LogThrottle;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.Role;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a client connection's certificate grants the role an operation needs ({@link
 * #requiredRole}): gets need read, everything that may change a key needs write. Plaintext
 * connections (an insecure node) carry no identity and are not checked. Refusals are counted and
 * logged at most once a second. Thread-safe.
 */
final class OperationAuthorizer {
  private static final System.Logger LOG = System.getLogger(OperationAuthorizer.class.getName());
  // One per kind, so a client retrying a refused watch does not hide refused operations.
  private static final LogThrottle REFUSALS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private static final LogThrottle WATCH_REFUSALS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private static final LogThrottle ADMIN_REFUSALS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private final ChannelSecurity security;
  private final LongAdder refused;

  OperationAuthorizer(ChannelSecurity security, LongAdder refused) {
    this.security = security;
    this.refused = refused;
  }

  /**
   * The role an operation needs: {@link Role#WRITE} for every operation that may change its key (a
   * fence included: it bumps the key's version), {@link Role#READ} for gets.
   */
  static Role requiredRole(ClientOperation operation) {
    return operation.mutates() ? Role.WRITE : Role.READ;
  }

  /** Null if the connection may run {@code op}; else the answer's reason. */
  String refusal(io.netty.channel.Channel channel, ClientOperation op) {
    if (!security.authenticates()) {
      return null;
    }
    return refusal(
        channel,
        requiredRole(op),
        op.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
        REFUSALS);
  }

  /**
   * Null if the connection may watch the node's topology: it needs {@link Role#READ} (a view names
   * members, addresses and leaders, never a key's value).
   */
  String watchRefusal(io.netty.channel.Channel channel) {
    if (!security.authenticates()) {
      return null;
    }
    return refusal(channel, Role.READ, "topology watch", WATCH_REFUSALS);
  }

  /**
   * Null if the connection may send admin commands (status, membership changes, compactions): they
   * need {@link Role#ADMIN}, which read and write do not imply.
   */
  String adminRefusal(io.netty.channel.Channel channel) {
    if (!security.authenticates()) {
      return null;
    }
    return refusal(channel, Role.ADMIN, "admin command", ADMIN_REFUSALS);
  }

  private String refusal(
      io.netty.channel.Channel channel, Role needed, String what, LogThrottle log) {
    CertificateIdentity id = security.identity(channel);
    if (id != null && id.roles().contains(needed)) {
      return null;
    }
    refused.increment();
    String who = id == null ? "an unverified connection" : id.toString();
    log.log(
        "refused a {0} from {1} ({2}): it needs the {3} role",
        what, who, channel.remoteAddress(), needed.uriName());
    return "permission denied: "
        + who
        + " lacks the "
        + needed.uriName()
        + " role a "
        + what
        + " needs";
  }
}
