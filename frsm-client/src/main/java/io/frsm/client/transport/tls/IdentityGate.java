package io.frsm.client.transport.tls;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Sits right after the {@link SslHandler}: when the handshake succeeded, reads the other end's
 * identity from its certificate ({@link IdentityUri}), checks it is of this cluster and one the
 * connection accepts ({@link IdentityRule}), and records it on the channel ({@link
 * #identity(Channel)}); otherwise closes the connection. Either way it tells the handlers after it
 * with a user event ({@link Verified} or {@link Refused}), so a dialing side writes only once the
 * other end is known.
 *
 * <p>Nothing the other end sends passes this handler unless its identity is recorded: bytes that
 * arrive before (or after a refusal) are dropped here. Handlers after it still treat a missing
 * identity as a refusal. TLS failures are counted and logged at most once a second ({@link
 * MutualTls}) and go no further, so a flood of bad handshakes leaves one line a second. Not
 * sharable.
 */
public final class IdentityGate extends ChannelInboundHandlerAdapter {
  static final String NAME = "frsm-identity";
  private static final AttributeKey<CertificateIdentity> IDENTITY =
      AttributeKey.valueOf("frsm.certificate-identity");

  /** The other end's identity was verified: the connection may carry frames. */
  public enum Verified {
    INSTANCE
  }

  /** The handshake failed or the identity was refused; the connection closes. */
  public record Refused(String reason) {}

  private final MutualTls security;
  private final IdentityRule rule;
  private boolean done;

  IdentityGate(MutualTls security, IdentityRule rule) {
    this.security = security;
    this.rule = rule;
  }

  /** Whether {@code channel} is guarded by a gate (its frames wait for {@link Verified}). */
  public static boolean guards(Channel channel) {
    return channel.pipeline().get(NAME) != null;
  }

  /** The verified identity of the other end, or null (not yet, refused, or plaintext). */
  public static CertificateIdentity identity(Channel channel) {
    return channel.attr(IDENTITY).get();
  }

  /**
   * Bytes pass only once the identity is verified: TLS may decode application data of the same read
   * after a refusal closed the connection, and none of it may reach the protocol.
   */
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (identity(ctx.channel()) == null) {
      ReferenceCountUtil.release(msg);
      return;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof SslHandshakeCompletionEvent completed && !done) {
      done = true;
      if (completed.isSuccess()) {
        verify(ctx);
      } else {
        refuse(ctx, "TLS handshake failed: " + describe(completed.cause()), true);
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  private void verify(ChannelHandlerContext ctx) {
    CertificateIdentity id;
    try {
      id = peerIdentity(ctx);
    } catch (IllegalArgumentException | SSLPeerUnverifiedException e) {
      refuse(ctx, "no usable identity: " + e.getMessage(), false);
      return;
    }
    if (!id.clusterId().equals(security.clusterId())) {
      refuse(ctx, "certificate of " + id + ", not of cluster " + security.clusterId(), false);
      return;
    }
    if (!rule.accepts().test(id)) {
      refuse(ctx, "certificate of " + id + " where " + rule.description() + " was expected", false);
      return;
    }
    ctx.channel().attr(IDENTITY).set(id);
    ctx.fireUserEventTriggered(Verified.INSTANCE);
  }

  private static CertificateIdentity peerIdentity(ChannelHandlerContext ctx)
      throws SSLPeerUnverifiedException {
    SslHandler ssl = ctx.pipeline().get(SslHandler.class);
    Certificate[] chain = ssl.engine().getSession().getPeerCertificates();
    if (chain.length == 0 || !(chain[0] instanceof X509Certificate first)) {
      throw new IllegalArgumentException("no X.509 certificate presented");
    }
    return IdentityUri.of(first);
  }

  private void refuse(ChannelHandlerContext ctx, String reason, boolean handshake) {
    security.refused(ctx.channel(), reason, handshake);
    ctx.fireUserEventTriggered(new Refused(reason));
    ctx.close();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (isTlsFailure(cause)) {
      // Counted and logged with the handshake event (or the close): the other end's doing.
      ctx.close();
      return;
    }
    ctx.fireExceptionCaught(cause);
  }

  private static boolean isTlsFailure(Throwable cause) {
    Throwable t =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    return t instanceof SSLException || t instanceof NotSslRecordException;
  }

  private static String describe(Throwable cause) {
    Throwable t =
        cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
    return t == null ? "unknown" : t.getClass().getSimpleName() + ": " + t.getMessage();
  }
}
