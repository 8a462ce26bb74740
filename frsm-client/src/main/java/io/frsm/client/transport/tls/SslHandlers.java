package io.frsm.client.transport.tls;

import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;

/**
 * Makes a channel's {@link SslHandler}, the TLS record codec at the very edge of the pipeline: it
 * needs the channel's buffer allocator, the one reference to Netty's buffers outside the frame
 * codec ({@code ByteBufConfinementTest} allows this class by name). Everything past it sees the
 * same bytes a plaintext connection would.
 */
final class SslHandlers {
  private SslHandlers() {}

  static SslHandler accepted(SslContext context, Channel channel) {
    return context.newHandler(channel.alloc());
  }

  /** Host and port key the client's session cache, so a reconnect may resume the session. */
  static SslHandler dialed(SslContext context, Channel channel, InetSocketAddress target) {
    return context.newHandler(channel.alloc(), target.getHostString(), target.getPort());
  }
}
