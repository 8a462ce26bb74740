package io.frsm.transport;

import io.frsm.consensus.core.Operation;
import io.frsm.transport.tls.CertificateIdentity;
import io.frsm.transport.tls.ChannelSecurity;
import io.frsm.transport.tls.Role;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Whether a client connection's certificate grants the role an operation needs ({@link
 * Role#requiredFor}): gets need read, everything that may change a key needs write. Plaintext
 * connections (an insecure node) carry no identity and are not checked. Refusals are counted and
 * logged at most once a second. Thread-safe.
 */
final class OperationAuthorizer {
  private static final System.Logger LOG = System.getLogger(OperationAuthorizer.class.getName());
  private static final LogThrottle REFUSALS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private final ChannelSecurity security;
  private final LongAdder refused;

  OperationAuthorizer(ChannelSecurity security, LongAdder refused) {
    this.security = security;
    this.refused = refused;
  }

  /** Null if the connection may run {@code op}; else the answer's reason. */
  String refusal(io.netty.channel.Channel channel, Operation op) {
    if (!security.authenticates()) {
      return null;
    }
    Role needed = Role.requiredFor(op);
    CertificateIdentity id = security.identity(channel);
    if (id != null && id.roles().contains(needed)) {
      return null;
    }
    refused.increment();
    String who = id == null ? "an unverified connection" : id.toString();
    REFUSALS.log(
        "refused a {0} from {1} ({2}): it needs the {3} role",
        op.getClass().getSimpleName().toLowerCase(java.util.Locale.ROOT),
        who,
        channel.remoteAddress(),
        needed.uriName());
    return "permission denied: "
        + who
        + " lacks the "
        + needed.uriName()
        + " role this operation needs";
  }
}
