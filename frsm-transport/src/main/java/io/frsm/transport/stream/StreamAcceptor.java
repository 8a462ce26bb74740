package io.frsm.transport.stream;

import io.frsm.client.transport.InboundLimits;
import io.netty.channel.Channel;

/**
 * Takes over an accepted peer-port connection that announced a stream with its preamble. Called on
 * the channel's event loop once, after the peer protocol's handlers left the pipeline and before
 * the bytes after the preamble are read: it adds the stream protocol's handlers at its end. The
 * connection's TLS and identity gate (any node of the cluster) stay in front of them.
 */
@FunctionalInterface
public interface StreamAcceptor {
  /**
   * {@code limits} are the peer port's, which the connection stays under: its stream frame decoder
   * must hold each begun frame to them ({@link StreamFraming#decoder(Runnable, InboundLimits)}), so
   * that stream frames share the port's and the node's budgets for frames not yet complete with
   * every peer and client frame (issue 24). Null only for a channel no port accepted (tests).
   */
  void accept(Channel channel, InboundLimits limits);
}
