package io.frsm.transport;

import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.CoalescingWriter;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.FrameEncoder;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Serves the client protocol: decodes requests at the edge, hands each to an {@link
 * OperationHandler}, and writes its response (tagged with the request id) when the handler's future
 * completes — in any order, several per flush.
 *
 * <p>A request whose envelope is sound but whose operation is not (empty key, missing version) is
 * answered {@link OperationResponse.Invalid} and never reaches the handler. A client that stops
 * reading its responses is disconnected once {@code maxQueuedFramesPerConnection} responses wait.
 */
public final class ClientProtocolServer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClientProtocolServer.class.getName());

  /** Executes client operations; called on an event loop thread, so it must not block. */
  @FunctionalInterface
  public interface OperationHandler {
    CompletableFuture<OperationResponse> handle(OperationRequest request);
  }

  private final Channel serverChannel;
  private final ChannelGroup accepted =
      new DefaultChannelGroup("clients-in", GlobalEventExecutor.INSTANCE);

  private ClientProtocolServer(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      TransportConfig config,
      TransportEventLoops loops) {
    ClientCodec codec = new ClientCodec(config.clusterId(), ClientCodec.Side.SERVER);
    ServerBootstrap server =
        ServerSockets.bootstrap(loops)
            .childOption(
                ChannelOption.WRITE_BUFFER_WATER_MARK,
                new WriteBufferWaterMark(
                    config.writeBufferLowWaterMarkBytes(), config.writeBufferHighWaterMarkBytes()))
            .childHandler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel ch) {
                    accepted.add(ch);
                    ch.pipeline()
                        .addLast(FrameEncoder.INSTANCE)
                        .addLast(new FrameDecoder(config.maxFrameBytes(), codec))
                        .addLast(new Connection(ch, handler, codec, config));
                  }
                });
    this.serverChannel = ServerSockets.bind(server, listenAddress, "client protocol server");
  }

  /** Listens on {@code listenAddress} (port 0 picks one). The caller closes {@code loops}. */
  public static ClientProtocolServer start(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      TransportConfig config,
      TransportEventLoops loops) {
    return new ClientProtocolServer(listenAddress, handler, config, loops);
  }

  public InetSocketAddress localAddress() {
    return (InetSocketAddress) serverChannel.localAddress();
  }

  @Override
  public void close() {
    serverChannel.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    accepted.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
  }

  /** One accepted client connection. */
  private static final class Connection extends SimpleChannelInboundHandler<ClientFrame> {
    private final Channel channel;
    private final OperationHandler handler;
    private final ClientCodec codec;
    private final TransportConfig config;
    private final CoalescingWriter writer;

    Connection(
        Channel channel, OperationHandler handler, ClientCodec codec, TransportConfig config) {
      this.channel = channel;
      this.handler = handler;
      this.codec = codec;
      this.config = config;
      this.writer =
          new CoalescingWriter(
              channel.eventLoop(), config.maxQueuedFramesPerConnection(), () -> {});
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      writer.attach(channel);
      ctx.fireChannelActive();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
      if (frame instanceof ClientFrame.BadRequest bad) {
        respond(bad.requestId(), null, new OperationResponse.Invalid(bad.reason()));
        return;
      }
      ClientFrame.Request request = (ClientFrame.Request) frame;
      ClientOperation op = request.request().operation();
      CompletableFuture<OperationResponse> future;
      try {
        future = handler.handle(request.request());
      } catch (RuntimeException e) {
        future = CompletableFuture.failedFuture(e);
      }
      future.whenComplete(
          (response, error) ->
              respond(request.requestId(), op, error == null ? response : failure(op, error)));
    }

    /** The handler failed: the client cannot know whether a mutation ran. */
    private static OperationResponse failure(ClientOperation op, Throwable error) {
      LOG.log(Level.ERROR, "operation handler failed on " + op, error);
      String reason = "server error: " + error;
      return new OperationResponse.Completed(
          op.mutates() ? new ClientOutcome.Unknown(reason) : new ClientOutcome.NotExecuted(reason));
    }

    /** Any thread. */
    private void respond(long requestId, ClientOperation op, OperationResponse response) {
      ClientEnvelope envelope = codec.encodeResponse(requestId, response);
      if (envelope.getSerializedSize() > config.maxFrameBytes()) {
        String reason = "response exceeds maxFrameBytes " + config.maxFrameBytes();
        ClientOutcome fallback =
            op != null && op.mutates()
                ? new ClientOutcome.Unknown(reason)
                : new ClientOutcome.NotExecuted(reason);
        envelope = codec.encodeResponse(requestId, new OperationResponse.Completed(fallback));
      }
      if (!writer.offer(envelope)) {
        LOG.log(
            Level.WARNING,
            "closing client connection from {0}: {1} responses wait unread",
            channel.remoteAddress(),
            writer.queuedFrames());
        channel.close();
      }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      writer.writabilityChanged(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      writer.detach();
      writer.discardQueued("connection closed");
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.log(
          Level.WARNING,
          "closing client connection from {0} after error: {1}",
          ctx.channel().remoteAddress(),
          cause.toString());
      ctx.close();
    }
  }
}
