package io.frsm.transport.stream;

import io.netty.channel.Channel;

/**
 * Takes over an accepted peer-port connection that announced a stream with its preamble. Called on
 * the channel's event loop once, after the peer protocol's handlers left the pipeline and before
 * the bytes after the preamble are read: it adds the stream protocol's handlers at its end. The
 * connection's TLS and identity gate (any node of the cluster) stay in front of them.
 */
@FunctionalInterface
public interface StreamAcceptor {
  void accept(Channel channel);
}
