package io.frsm.transport;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.lang.System.Logger.Level;

/**
 * Hands decoded peer frames of one accepted connection to the node. The first frame fixes the
 * sender: a later frame naming another node closes the connection unread. Not sharable.
 */
final class PeerInboundHandler<M> extends SimpleChannelInboundHandler<SenderFrame<M>> {
  private static final System.Logger LOG = System.getLogger(PeerInboundHandler.class.getName());
  private static final int NO_SENDER = -1;

  private final FramedPeerTransport.InboundHandler<M> handler;
  private int sender = NO_SENDER;

  PeerInboundHandler(FramedPeerTransport.InboundHandler<M> handler) {
    this.handler = handler;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, SenderFrame<M> frame) {
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
    try {
      handler.onMessage(sender, frame.message());
    } catch (RuntimeException e) {
      // A bug in the node, not in the peer: keep the connection, say what happened.
      LOG.log(Level.ERROR, "peer message handler failed on " + frame.message(), e);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(
        Level.WARNING,
        "closing peer connection from {0} after error: {1}",
        ctx.channel().remoteAddress(),
        cause.toString());
    ctx.close();
  }
}
