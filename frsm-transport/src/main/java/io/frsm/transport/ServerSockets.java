package io.frsm.transport;

import io.frsm.client.transport.CoalescingWriter;
import io.frsm.client.transport.ReadBuffers;
import io.frsm.client.transport.TransportEventLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/** The listening sockets of a node (peer transports, client protocol server), set up alike. */
final class ServerSockets {
  private ServerSockets() {}

  /**
   * A server bootstrap on {@code loops} with the options every listener uses: {@code SO_REUSEADDR},
   * so a restarted node binds its port again while its old connections linger in TIME_WAIT; on
   * accepted sockets {@code TCP_NODELAY}, since {@link CoalescingWriter} already batches a turn's
   * frames into one write and Nagle would only delay them, and {@code SO_KEEPALIVE}, so a peer that
   * vanished without closing is noticed eventually; and read buffers sized by {@link ReadBuffers},
   * so a frame of a value's size after small ones arrives in one read. The caller adds the child
   * handler.
   */
  static ServerBootstrap bootstrap(TransportEventLoops loops) {
    return new ServerBootstrap()
        .group(loops.group())
        .channel(loops.serverChannel())
        .option(ChannelOption.SO_REUSEADDR, true)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childOption(ChannelOption.SO_KEEPALIVE, true)
        .childOption(ChannelOption.RECVBUF_ALLOCATOR, ReadBuffers.allocator());
  }

  /** Binds {@code server} to {@code address}, or throws saying clearly what could not listen. */
  static Channel bind(ServerBootstrap server, InetSocketAddress address, String what) {
    ChannelFuture bound = server.bind(address).awaitUninterruptibly();
    if (!bound.isSuccess()) {
      BindException e = new BindException(what + ": cannot listen on " + address);
      e.initCause(bound.cause());
      throw new UncheckedIOException(e);
    }
    return bound.channel();
  }
}
