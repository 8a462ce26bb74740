package io.frsm.transport;

import io.frsm.client.transport.LogThrottle;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;

/**
 * Hands decoded peer frames of one accepted connection to the node. The first frame fixes the
 * sender: a later frame naming another node closes the connection unread. With TLS, every frame's
 * sender must be the node the connection's certificate names (docs/PROTOCOL.md "Peer identity"): a
 * frame that claims another sender closes the connection unread, counted and logged at most once a
 * second. Not sharable.
 */
final class PeerInboundHandler<M> extends SimpleChannelInboundHandler<SenderFrame<M>> {
  private static final System.Logger LOG = System.getLogger(PeerInboundHandler.class.getName());

  /** Connection errors (resets above all): at most one line a second, however many. */
  private static final LogThrottle CONNECTION_ERRORS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private static final int NO_SENDER = -1;

  private static final LogThrottle IMPERSONATIONS =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  private final FramedPeerTransport.InboundHandler<M> handler;
  private final ChannelSecurity security;
  private final Runnable onRefusedSender;
  private int sender = NO_SENDER;

  /** {@code onRefusedSender} runs for a frame whose sender the certificate refutes (a counter). */
  PeerInboundHandler(
      FramedPeerTransport.InboundHandler<M> handler,
      ChannelSecurity security,
      Runnable onRefusedSender) {
    this.handler = handler;
    this.security = security;
    this.onRefusedSender = onRefusedSender;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, SenderFrame<M> frame) {
    if (security.authenticates() && !certified(ctx, frame.senderNodeId())) {
      return;
    }
    if (sender == NO_SENDER) {
      sender = frame.senderNodeId();
    } else if (sender != frame.senderNodeId()) {
      LOG.log(
          Level.WARNING,
          "closing peer connection from {0}: sender changed from node {1} to node {2}",
          ctx.channel().remoteAddress(),
          sender,
          frame.senderNodeId());
      ctx.close();
      return;
    }
    if (!ctx.channel().isActive()) {
      return; // closing: frames decoded from the same read batch go nowhere
    }
    if (frame.isKeepalive()) {
      return; // its work is done: the connection's idle timer saw it arrive
    }
    try {
      handler.onMessage(sender, frame.message());
    } catch (RuntimeException e) {
      // A bug in the node, not in the peer: keep the connection, say what happened.
      LOG.log(Level.ERROR, "peer message handler failed on " + frame.message(), e);
    }
  }

  /** Whether the connection's certificate names {@code claimed}; if not, refuses the connection. */
  private boolean certified(ChannelHandlerContext ctx, int claimed) {
    CertificateIdentity id = security.identity(ctx.channel());
    if (id instanceof CertificateIdentity.Node n && n.nodeId() == claimed) {
      return true;
    }
    onRefusedSender.run();
    IMPERSONATIONS.log(
        "closing peer connection from {0}: a frame claims node {1}, the certificate is of {2}",
        ctx.channel().remoteAddress(), claimed, id == null ? "nobody (not verified)" : id);
    ctx.close();
    return false;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    CONNECTION_ERRORS.log(
        "closing peer connection from {0} after error: {1}",
        ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}
