package io.frsm.client.transport;

import com.google.protobuf.MessageLite;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.IdentityRule;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of the client protocol: one reconnecting connection to one node, many requests in
 * flight, matched to responses by request id.
 *
 * <p>A call that fails without a response fails with what the caller may safely conclude:
 *
 * <ul>
 *   <li>never written (backlog full, node unreachable, client closed): {@link NotExecutedException}
 *       — the node never saw it;
 *   <li>written, then no response before the timeout or the connection dropped: {@link
 *       OutcomeUnknownException} for a mutation (resolve with {@code fence}), {@link
 *       NotExecutedException} for a get (reads change nothing, so a retry is safe).
 * </ul>
 *
 * A call whose timeout expires while still queued is never written afterwards.
 */
public final class ClientProtocolClient implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ClientProtocolClient.class);

  private final InetSocketAddress server;
  private final ClientCodec codec;
  private final TransportConfig config;
  private final OutboundConnection connection;
  private final AtomicLong nextRequestId = new AtomicLong();
  private final Map<Long, Call<?>> calls = new ConcurrentHashMap<>();
  private final LongAdder silentCloses = new LongAdder();
  private volatile TopologyWatch watch;
  private volatile boolean closed;

  /** Hears the topology a node pushes on this connection (on the connection's event loop). */
  public interface TopologyListener {
    /** The node's current view; called once at once, then after every change it sees. */
    void updated(TopologySnapshot topology);

    /** No more views will come on this watch (connection lost, or client closed). */
    void lost(String reason);
  }

  private ClientProtocolClient(
      InetSocketAddress server,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    this.server = server;
    this.config = config;
    this.codec = new ClientCodec(config.clusterId(), ClientCodec.Side.CLIENT);
    this.connection =
        new OutboundConnection(
            "client connection to " + server,
            () -> server,
            loops,
            config,
            pipeline -> {
              security.dialed(pipeline.channel(), server, IdentityRule.anyNode());
              pipeline
                  .addLast(
                      new SilentNodeDetector(
                          "client connection to " + server,
                          config.idleTimeout().toNanos(),
                          silentCloses))
                  .addLast(new FrameDecoder(config.maxFrameBytes(), codec))
                  .addLast(new ResponseHandler());
            },
            this::channelClosed,
            discarded -> {},
            // Ids from the requests' sequence, so a keep-alive never shares one with a request.
            () -> codec.encodePing(nextRequestId.incrementAndGet()));
  }

  /** A client for the node at {@code server}; it dials now and reconnects with back-off. */
  public static ClientProtocolClient connect(
      InetSocketAddress server, TransportConfig config, TransportEventLoops loops) {
    return connect(server, config, loops, ChannelSecurity.plaintext());
  }

  /**
   * As above, over {@code security}: the node must present a node certificate of the cluster;
   * requests wait until it did (a refused node fails them as never sent).
   */
  public static ClientProtocolClient connect(
      InetSocketAddress server,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security) {
    ClientProtocolClient client = new ClientProtocolClient(server, config, loops, security);
    client.connection.connect();
    return client;
  }

  public InetSocketAddress server() {
    return server;
  }

  /**
   * Sends {@code request}; the future completes with the node's response, or exceptionally as the
   * class comment says. Never blocks.
   */
  public CompletableFuture<OperationResponse> call(OperationRequest request, Duration timeout) {
    long requestId = nextRequestId.incrementAndGet();
    return send(
        new Call<>(
            requestId,
            OperationResponse.class,
            request.operation().mutates(),
            codec.requestEnvelope(requestId, request),
            timeout));
  }

  /**
   * Sends an admin command; the future completes with the node's answer, or exceptionally as the
   * class comment says (a membership change or a compaction counts as a mutation, a status as a
   * read). Never blocks.
   */
  public CompletableFuture<AdminResponse> admin(AdminRequest request, Duration timeout) {
    long requestId = nextRequestId.incrementAndGet();
    return send(
        new Call<>(
            requestId,
            AdminResponse.class,
            !request.hasStatus(),
            codec.encodeAdminRequest(requestId, request),
            timeout));
  }

  private <R> CompletableFuture<R> send(Call<R> call) {
    if (closed) {
      call.fail(new NotExecutedException("client closed"));
      return call.future;
    }
    if (call.envelope.getSerializedSize() > config.maxFrameBytes()) {
      call.fail(
          new NotExecutedException(
              "request of "
                  + call.envelope.getSerializedSize()
                  + " bytes exceeds maxFrameBytes "
                  + config.maxFrameBytes()));
      return call.future;
    }
    calls.put(call.requestId, call);
    if (!connection.send(call)) {
      calls.remove(call.requestId);
      call.fail(new NotExecutedException("backlog to " + server + " is full"));
      return call.future;
    }
    Duration timeout = call.allowed;
    call.timeout =
        connection
            .loop()
            .schedule(() -> call.expire(timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
    return call.future;
  }

  /**
   * Asks the node for its view of the cluster now and after every change, for as long as the
   * current connection lasts; {@code listener} hears each view and, once, that the watch ended (the
   * caller then watches again, here or at another node). At most one watch per client: a second
   * call while one is open is refused (false), as is one on a closed client or a full backlog.
   */
  public synchronized boolean watchTopology(TopologyListener listener) {
    if (closed || watch != null) {
      return false;
    }
    long requestId = nextRequestId.incrementAndGet();
    TopologyWatch w = new TopologyWatch(requestId, codec.encodeWatchTopology(requestId), listener);
    watch = w;
    if (!connection.send(w)) {
      watch = null;
      return false;
    }
    return true;
  }

  /**
   * Keep-alives written on this client's connections: the node's idle timeout ({@code
   * transport.idleTimeout}) would otherwise close a connection that only waits (tests).
   */
  public long keepalivesSent() {
    return connection.keepalivesSent();
  }

  /**
   * Connections this client closed because nothing was read on them for the idle timeout, although
   * a live node answers every ping ({@link SilentNodeDetector}).
   */
  public long silentNodeCloses() {
    return silentCloses.sum();
  }

  /** Requests in flight or queued. */
  public int pendingCalls() {
    return calls.size();
  }

  /** On the loop: requests written on {@code closed} will get no response. */
  private void channelClosed(Channel closed) {
    TopologyWatch w = watch;
    if (w != null && w.writtenOn == closed) {
      w.end("connection to " + server + " closed");
    }
    for (Call<?> call : calls.values()) {
      if (call.writtenOn == closed) {
        call.lost("connection to " + server + " closed before the response arrived");
      }
    }
  }

  /** Fails every call still open; queued ones as not executed. */
  @Override
  public void close() {
    closed = true;
    connection.close("client closed");
    TopologyWatch w = watch;
    if (w != null) {
      connection.loop().execute(() -> w.end("client closed"));
    }
    for (Call<?> call : calls.values()) {
      connection.loop().execute(() -> call.lost("client closed before the response arrived"));
    }
  }

  /**
   * One request in flight, answered by an {@code R}. Its state changes only on the connection's
   * loop.
   */
  private final class Call<R> implements TrackedFrame {
    final long requestId;
    final Class<R> answerType;
    // Whether the request may change something: then a lost answer leaves its outcome unknown.
    final boolean mutates;
    final MessageLite envelope;
    final CompletableFuture<R> future = new CompletableFuture<>();
    final Duration allowed;
    final long deadlineNanos;
    Channel writtenOn;
    volatile ScheduledFuture<?> timeout;

    Call(
        long requestId,
        Class<R> answerType,
        boolean mutates,
        MessageLite envelope,
        Duration allowed) {
      this.requestId = requestId;
      this.answerType = answerType;
      this.mutates = mutates;
      this.envelope = envelope;
      this.allowed = allowed;
      this.deadlineNanos = System.nanoTime() + allowed.toNanos();
    }

    @Override
    public MessageLite envelope() {
      return envelope;
    }

    @Override
    public boolean beforeWrite(Channel channel) {
      if (future.isDone()) {
        return false; // expired while queued: it must never run now
      }
      if (System.nanoTime() - deadlineNanos >= 0) {
        // Past its deadline, though the timer has not run yet (it may run after the loop has
        // already read the answer): never written, so never answered.
        expire(allowed);
        return false;
      }
      writtenOn = channel;
      return true;
    }

    @Override
    public void discarded(String reason) {
      fail(new NotExecutedException(reason));
    }

    void expire(Duration after) {
      lost("no response within " + after.toMillis() + " ms");
    }

    /** No response will come (or it came too late to use). */
    void lost(String reason) {
      if (writtenOn == null) {
        fail(new NotExecutedException(reason + " (request never sent)"));
      } else if (mutates) {
        fail(new OutcomeUnknownException(reason));
      } else {
        fail(new NotExecutedException(reason));
      }
    }

    void fail(RuntimeException e) {
      calls.remove(requestId, this);
      cancelTimeout();
      future.completeExceptionally(e);
    }

    /** The node's answer; one of another kind than asked is a broken node's: lost, not taken. */
    void complete(Object response) {
      if (!answerType.isInstance(response)) {
        lost("answered with a " + response.getClass().getSimpleName() + " instead");
        return;
      }
      calls.remove(requestId, this);
      cancelTimeout();
      future.complete(answerType.cast(response));
    }

    private void cancelTimeout() {
      if (timeout != null) {
        timeout.cancel(false);
      }
    }
  }

  /** The one topology watch; its state changes only on the connection's loop. */
  private final class TopologyWatch implements TrackedFrame {
    final long requestId;
    final ClientEnvelope envelope;
    final TopologyListener listener;
    Channel writtenOn;
    boolean ended;

    TopologyWatch(long requestId, ClientEnvelope envelope, TopologyListener listener) {
      this.requestId = requestId;
      this.envelope = envelope;
      this.listener = listener;
    }

    @Override
    public MessageLite envelope() {
      return envelope;
    }

    @Override
    public boolean beforeWrite(Channel channel) {
      if (ended) {
        return false;
      }
      writtenOn = channel;
      return true;
    }

    @Override
    public void discarded(String reason) {
      end(reason);
    }

    void end(String reason) {
      if (ended) {
        return;
      }
      ended = true;
      synchronized (ClientProtocolClient.this) {
        if (watch == this) {
          watch = null;
        }
      }
      listener.lost(reason);
    }
  }

  private final class ResponseHandler extends SimpleChannelInboundHandler<ClientFrame> {
    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ClientFrame frame) {
      if (frame instanceof ClientFrame.Pong) {
        return; // its work is done: the node read the keep-alive
      }
      if (frame instanceof ClientFrame.TopologyUpdate update) {
        TopologyWatch w = watch;
        if (w != null && !w.ended && w.requestId == update.requestId()) {
          w.listener.updated(update.topology());
        } else {
          LOG.debug("topology from {} that no watch asked for", server);
        }
        return;
      }
      if (frame instanceof ClientFrame.AdminAnswer answer) {
        Call<?> call = calls.get(answer.requestId());
        if (call == null) {
          LOG.debug("admin answer {} from {} that no caller waits for", answer.requestId(), server);
          return;
        }
        call.complete(answer.response());
        return;
      }
      ClientFrame.Response response = (ClientFrame.Response) frame;
      TopologyWatch w = watch;
      if (w != null && !w.ended && w.requestId == response.requestId()) {
        // A node answers a watch it will not serve (the certificate lacks the read role) with a
        // response instead of views: the watch ends with the node's reason.
        w.end("watch refused by " + server + ": " + response.response());
        return;
      }
      Call<?> call = calls.get(response.requestId());
      if (call == null) {
        LOG.debug(
            "response to request {} from {} arrived after the caller gave up",
            response.requestId(),
            server);
        return;
      }
      call.complete(response.response());
    }
  }
}
