package io.frsm.client.transport.tls;

import io.netty.channel.Channel;
import java.net.InetSocketAddress;

/**
 * What a transport asks of security for each connection: plaintext ({@link #plaintext()}, only
 * where the operator said {@code security.insecure: true}), or mutual TLS with an identity per
 * connection ({@link MutualTls}). The transports call it from their channel initializers; it puts
 * its handlers at the head of the pipeline, so it may be called before or after the transport adds
 * its own.
 */
public interface ChannelSecurity {

  /** Whether connections carry a verified {@link #identity}. */
  boolean authenticates();

  /** Secures an accepted connection; only identities {@code rule} accepts may use it. */
  void accepted(Channel channel, IdentityRule rule);

  /**
   * Secures a dialed connection to {@code target}, which must present an identity {@code rule}
   * accepts.
   */
  void dialed(Channel channel, InetSocketAddress target, IdentityRule rule);

  /**
   * The verified identity of the other end of {@code channel}; null on a plaintext connection, or
   * before (or without) a successful handshake.
   */
  CertificateIdentity identity(Channel channel);

  /** No TLS: every connection is plaintext and anonymous. */
  static ChannelSecurity plaintext() {
    return Plaintext.INSTANCE;
  }

  /** {@link ChannelSecurity#plaintext()}. */
  final class Plaintext implements ChannelSecurity {
    static final Plaintext INSTANCE = new Plaintext();

    private Plaintext() {}

    @Override
    public boolean authenticates() {
      return false;
    }

    @Override
    public void accepted(Channel channel, IdentityRule rule) {}

    @Override
    public void dialed(Channel channel, InetSocketAddress target, IdentityRule rule) {}

    @Override
    public CertificateIdentity identity(Channel channel) {
      return null;
    }

    @Override
    public String toString() {
      return "plaintext";
    }
  }
}
