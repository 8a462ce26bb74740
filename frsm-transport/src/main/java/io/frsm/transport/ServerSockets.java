package io.frsm.transport;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetSocketAddress;

/** Binds a server socket or says clearly why it could not. */
final class Bind {
  private Bind() {}

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
