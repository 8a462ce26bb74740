package io.frsm.transport;

import com.google.protobuf.MessageLite;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.CoalescingWriter;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.FrameEncoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.LogThrottle;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.IdentityRule;
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
import java.util.concurrent.atomic.LongAdder;

/**
 * Serves the client protocol: decodes requests at the edge, hands each to an {@link
 * OperationHandler}, and writes its response (tagged with the request id) when the handler's future
 * completes — in any order, several per flush.
 *
 * <p>A request whose envelope is sound but whose operation is not (empty key, missing version) is
 * answered {@link OperationResponse.Invalid} and never reaches the handler. A client that stops
 * reading its responses is disconnected once {@code maxQueuedFramesPerConnection} responses wait.
 *
 * <p>With TLS ({@link ChannelSecurity}), a connection carries the identity of its certificate, and
 * an operation whose role ({@link OperationAuthorizer}) that identity lacks is answered {@link
 * OperationResponse.Invalid} ("permission denied ...") and never reaches the handler; an admin
 * command from an identity without the admin role is answered {@code refused} the same way.
 */
public final class ClientProtocolServer implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ClientProtocolServer.class.getName());

  /** Executes client operations; called on an event loop thread, so it must not block. */
  @FunctionalInterface
  public interface OperationHandler {
    CompletableFuture<OperationResponse> handle(OperationRequest request);
  }

  /**
   * Answers operators' admin commands ({@code frsm admin}); called on an event loop thread, so it
   * must not block. The command is as the client sent it: the handler checks every field.
   */
  @FunctionalInterface
  public interface AdminHandler {
    /** Refuses every command: a server that serves no admin surface. */
    AdminHandler NONE =
        request ->
            CompletableFuture.completedFuture(
                AdminResponse.newBuilder()
                    .setRefused("this server answers no admin commands")
                    .build());

    CompletableFuture<AdminResponse> handle(AdminRequest request);
  }

  private final Channel serverChannel;
  private final ChannelGroup accepted =
      new DefaultChannelGroup("clients-in", GlobalEventExecutor.INSTANCE);
  private final LongAdder refusedOperations = new LongAdder();
  private final InboundLimits limits;

  /** Connection errors (resets above all): at most one line a second, however many. */
  private static final LogThrottle CONNECTION_ERRORS =
      new LogThrottle(LOG, Level.WARNING, 1, java.util.concurrent.TimeUnit.SECONDS);

  private ClientProtocolServer(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      AdminHandler admin,
      TopologyFeed topology,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    OperationAuthorizer authorizer = new OperationAuthorizer(security, refusedOperations);
    this.limits = new InboundLimits("client port", config, loops.nodeFrameBudget(config));
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
                    security.accepted(ch, IdentityRule.nodeOrClient());
                    ch.pipeline()
                        .addFirst(limits.connectionGate())
                        .addLast(FrameEncoder.INSTANCE)
                        .addLast(limits.idleCloser())
                        .addLast(new FrameDecoder(config.maxFrameBytes(), codec, () -> {}, limits))
                        .addLast(
                            new Connection(
                                ch, handler, admin, topology, codec, config, authorizer));
                  }
                });
    this.serverChannel = ServerSockets.bind(server, listenAddress, "client protocol server");
  }

  /** What this port lets its connections hold, and what it refused. */
  public InboundLimits limits() {
    return limits;
  }

  /** Listens on {@code listenAddress} (port 0 picks one). The caller closes {@code loops}. */
  public static ClientProtocolServer start(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      TransportConfig config,
      TransportEventLoops loops) {
    return start(
        listenAddress, handler, TopologyFeed.NONE, config, loops, ChannelSecurity.plaintext());
  }

  /**
   * Like {@link #start(InetSocketAddress, OperationHandler, TransportConfig, TransportEventLoops)},
   * also answering clients' topology watches from {@code topology}.
   */
  public static ClientProtocolServer start(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      TopologyFeed topology,
      TransportConfig config,
      TransportEventLoops loops) {
    return start(listenAddress, handler, topology, config, loops, ChannelSecurity.plaintext());
  }

  /**
   * Listens on {@code listenAddress}, every connection secured by {@code security}: a client or a
   * node certificate of the cluster, whose roles each operation (and a topology watch: read) needs;
   * topology watches are answered from {@code topology}.
   */
  public static ClientProtocolServer start(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      TopologyFeed topology,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    return start(listenAddress, handler, AdminHandler.NONE, topology, config, loops, security);
  }

  /**
   * As above, also answering admin commands with {@code admin}; each needs the admin role (on a
   * plaintext server, anyone may send them).
   */
  public static ClientProtocolServer start(
      InetSocketAddress listenAddress,
      OperationHandler handler,
      AdminHandler admin,
      TopologyFeed topology,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    return new ClientProtocolServer(
        listenAddress, handler, admin, topology, config, loops, security);
  }

  /**
   * Operations (and topology watches) refused because the connection's certificate lacks the role
   * they need.
   */
  public long refusedOperations() {
    return refusedOperations.sum();
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
    private final AdminHandler admin;
    private final TopologyFeed topology;
    private final ClientCodec codec;
    private final TransportConfig config;
    private final OperationAuthorizer authorizer;
    private final CoalescingWriter writer;
    // The connection's topology watch; touched only on the connection's loop.
    private AutoCloseable watchHandle;
    private long watchRequestId;
    private TopologySnapshot lastSent;

    Connection(
        Channel channel,
        OperationHandler handler,
        AdminHandler admin,
        TopologyFeed topology,
        ClientCodec codec,
        TransportConfig config,
        OperationAuthorizer authorizer) {
      this.channel = channel;
      this.authorizer = authorizer;
      this.handler = handler;
      this.admin = admin;
      this.topology = topology;
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
      if (frame instanceof ClientFrame.WatchTopology watch) {
        String denied = authorizer.watchRefusal(channel);
        if (denied != null) {
          // The client's watch ends with this answer (ClientProtocolClient): no view is sent.
          respond(watch.requestId(), null, new OperationResponse.Invalid(denied));
          return;
        }
        startWatch(watch.requestId());
        return;
      }
      if (frame instanceof ClientFrame.Ping ping) {
        // Answered like any request (same queue, same limit on unread answers), so a flood of
        // keep-alives costs no more than a flood of refused requests.
        if (!writer.offer(codec.encodePong(ping.requestId()))) {
          channel.close();
        }
        return;
      }
      if (frame instanceof ClientFrame.AdminCall call) {
        runAdmin(call);
        return;
      }
      if (frame instanceof ClientFrame.BadRequest bad) {
        respond(bad.requestId(), null, new OperationResponse.Invalid(bad.reason()));
        return;
      }
      ClientFrame.Request request = (ClientFrame.Request) frame;
      ClientOperation op = request.request().operation();
      String denied = authorizer.refusal(channel, op);
      if (denied != null) {
        respond(request.requestId(), null, new OperationResponse.Invalid(denied));
        return;
      }
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

    private void runAdmin(ClientFrame.AdminCall call) {
      String denied = authorizer.adminRefusal(channel);
      if (denied != null) {
        respondAdmin(call.requestId(), AdminResponse.newBuilder().setRefused(denied).build());
        return;
      }
      CompletableFuture<AdminResponse> future;
      try {
        future = admin.handle(call.request());
      } catch (RuntimeException e) {
        future = CompletableFuture.failedFuture(e);
      }
      future.whenComplete(
          (response, error) -> {
            if (error != null) {
              LOG.log(Level.ERROR, "admin handler failed on " + call.request(), error);
            }
            respondAdmin(
                call.requestId(),
                error == null
                    ? response
                    : AdminResponse.newBuilder().setRefused("server error: " + error).build());
          });
    }

    /** Any thread. */
    private void respondAdmin(long requestId, AdminResponse response) {
      ClientEnvelope envelope = codec.encodeAdminResponse(requestId, response);
      if (envelope.getSerializedSize() > config.maxFrameBytes()) {
        envelope =
            codec.encodeAdminResponse(
                requestId,
                AdminResponse.newBuilder()
                    .setRefused(
                        "the answer of "
                            + envelope.getSerializedSize()
                            + " bytes exceeds maxFrameBytes "
                            + config.maxFrameBytes())
                    .build());
      }
      if (!writer.offer(envelope)) {
        channel.close();
      }
    }

    /**
     * Sends the node's view now and again whenever it changed, tagged {@code requestId}, until the
     * connection closes. One watch per connection: a second one closes it (a client never sends
     * two). Views are built and compared on the connection's loop, so they go out in order and a
     * change that leaves the view as it was sends nothing.
     */
    private void startWatch(long requestId) {
      if (watchHandle != null) {
        LOG.log(
            Level.WARNING,
            "closing client connection from {0}: second topology watch",
            channel.remoteAddress());
        channel.close();
        return;
      }
      watchRequestId = requestId;
      watchHandle = topology.onChange(() -> channel.eventLoop().execute(this::sendTopology));
      sendTopology();
    }

    /** On the loop. */
    private void sendTopology() {
      if (!channel.isActive()) {
        return;
      }
      TopologySnapshot now = topology.current();
      if (now.sameAs(lastSent)) {
        return;
      }
      lastSent = now;
      ClientEnvelope envelope = codec.encodeTopology(watchRequestId, now);
      if (envelope.getSerializedSize() > config.maxFrameBytes() || !writer.offer(envelope)) {
        LOG.log(
            Level.WARNING,
            "closing client connection from {0}: cannot send its topology",
            channel.remoteAddress());
        channel.close();
      }
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
      MessageLite envelope = codec.responseEnvelope(requestId, response);
      if (envelope.getSerializedSize() > config.maxFrameBytes()) {
        String reason = "response exceeds maxFrameBytes " + config.maxFrameBytes();
        ClientOutcome fallback =
            op != null && op.mutates()
                ? new ClientOutcome.Unknown(reason)
                : new ClientOutcome.NotExecuted(reason);
        envelope = codec.responseEnvelope(requestId, new OperationResponse.Completed(fallback));
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
      if (watchHandle != null) {
        try {
          watchHandle.close();
        } catch (Exception e) {
          LOG.log(Level.WARNING, "ending a topology watch failed: {0}", e.toString());
        }
      }
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      CONNECTION_ERRORS.log(
          "closing client connection from {0} after error: {1}",
          ctx.channel().remoteAddress(), cause.toString());
      ctx.close();
    }
  }
}
