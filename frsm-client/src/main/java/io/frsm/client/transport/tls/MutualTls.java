package io.frsm.client.transport.tls;

import io.frsm.client.transport.LogThrottle;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Mutual TLS 1.3 on every connection of one side (docs/OPERATIONS.md "Security"): contexts from
 * {@link TlsContexts} (so a connection made after the files changed uses the new ones), then an
 * {@link IdentityGate} that admits only identities of this cluster that the connection's {@link
 * IdentityRule} accepts. A connection that does not complete the handshake within the handshake
 * timeout is closed. Refusals are counted ({@link #handshakeFailures()}, {@link
 * #identityRefusals()}) and logged at most once a second. Thread-safe.
 */
public final class MutualTls implements ChannelSecurity {
  private static final System.Logger LOG = System.getLogger(MutualTls.class.getName());

  private final TlsContexts contexts;
  private final String clusterId;
  private final long handshakeTimeoutMillis;
  private final LongAdder handshakeFailures = new LongAdder();
  private final LongAdder identityRefusals = new LongAdder();
  // One per kind, so a flood of one kind of refusal does not hide the other.
  private final LogThrottle handshakeLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);
  private final LogThrottle identityLog = new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  /**
   * @param clusterId the cluster every accepted identity must belong to; this side's own
   *     certificate too
   * @throws IllegalArgumentException if this side's certificate is of another cluster
   */
  public MutualTls(TlsContexts contexts, String clusterId, Duration handshakeTimeout) {
    this.contexts = Objects.requireNonNull(contexts, "contexts");
    this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
    if (!contexts.self().clusterId().equals(clusterId)) {
      throw new IllegalArgumentException(
          "this side's certificate is of " + contexts.self() + ", not of cluster " + clusterId);
    }
    this.handshakeTimeoutMillis = handshakeTimeout.toMillis();
    if (handshakeTimeoutMillis < 1) {
      throw new IllegalArgumentException("handshakeTimeout must be at least 1 ms");
    }
  }

  String clusterId() {
    return clusterId;
  }

  /** This side's own identity, from its certificate. */
  public CertificateIdentity self() {
    return contexts.self();
  }

  public TlsContexts contexts() {
    return contexts;
  }

  @Override
  public boolean authenticates() {
    return true;
  }

  @Override
  public void accepted(Channel channel, IdentityRule rule) {
    install(channel, SslHandlers.accepted(contexts.server(), channel), rule);
  }

  @Override
  public void dialed(Channel channel, InetSocketAddress target, IdentityRule rule) {
    install(channel, SslHandlers.dialed(contexts.client(), channel, target), rule);
  }

  private void install(Channel channel, SslHandler ssl, IdentityRule rule) {
    ssl.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
    channel.pipeline().addFirst(IdentityGate.NAME, new IdentityGate(this, rule));
    channel.pipeline().addFirst("frsm-tls", ssl);
  }

  @Override
  public CertificateIdentity identity(Channel channel) {
    return IdentityGate.identity(channel);
  }

  /** Connections whose TLS handshake failed (no or an untrusted certificate, not TLS at all). */
  public long handshakeFailures() {
    return handshakeFailures.sum();
  }

  /** Connections whose handshake succeeded but whose certificate's identity was refused. */
  public long identityRefusals() {
    return identityRefusals.sum();
  }

  void refused(Channel channel, String reason, boolean handshake) {
    (handshake ? handshakeFailures : identityRefusals).increment();
    (handshake ? handshakeLog : identityLog)
        .log("refused TLS connection with {0}: {1}", channel.remoteAddress(), reason);
  }

  @Override
  public String toString() {
    return "mutual TLS as " + contexts.self();
  }
}
