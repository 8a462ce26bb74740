package io.frsm.server.stream;

import com.google.protobuf.UnsafeByteOperations;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.transport.HandOffShipments;
import io.frsm.transport.proto.Chunk;
import io.frsm.transport.proto.FileProgress;
import io.frsm.transport.proto.HandOffChunk;
import io.frsm.transport.proto.HandOffImported;
import io.frsm.transport.proto.OpenStream;
import io.frsm.transport.proto.ReadChunk;
import io.frsm.transport.proto.StreamEnvelope;
import io.frsm.transport.proto.StreamError;
import io.frsm.transport.proto.StreamFile;
import io.frsm.transport.proto.StreamManifest;
import io.frsm.transport.stream.StreamFrame;
import io.frsm.transport.stream.StreamWire;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.timeout.IdleStateEvent;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One receiver's session on the source (docs/formats/streaming.md "Flow"): the first frame opens
 * (or resumes) a snapshot of the range and is answered with its manifest; each {@code ReadChunk} is
 * answered, in order, with the bytes and their CRC32C; {@code CloseStream} ends it. Everything the
 * receiver sends is checked: the sender must be the node its certificate names, file indexes,
 * offsets and lengths must lie within the snapshot, and the bytes asked and not yet sent are
 * bounded; a violation is answered with a {@code StreamError} and closes the connection, and
 * nothing a receiver sends can stop the node. Frames arrive on the event loop; the snapshot and
 * file state belong to the stream executor, which handles this session's work in arrival order.
 */
final class SourceConnection extends SimpleChannelInboundHandler<StreamFrame> {
  private static final System.Logger LOG = System.getLogger(SourceConnection.class.getName());

  /** Bytes asked and not yet handed to the socket that one receiver may have. */
  static final long MAX_OUTSTANDING_BYTES = 32L << 20;

  private final StreamSource.SourceContext context;
  private final AtomicLong outstandingBytes = new AtomicLong();

  // Event loop only.
  private int sender = -1;
  private boolean opened;
  private boolean counted;
  private HandOffShipments.Assembly handOff;
  private long handOffReserved;

  // Executor only.
  private SnapshotStore.Snapshot snapshot;
  private final Map<Integer, FileChannel> open = new HashMap<>();
  private boolean ended;

  SourceConnection(StreamSource.SourceContext context) {
    this.context = context;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, StreamFrame frame) {
    if (!admitted(ctx, frame.senderNodeId())) {
      return;
    }
    StreamEnvelope e = frame.envelope();
    switch (e.getBodyCase()) {
      case OPEN -> open(ctx, e.getOpen());
      case READ_CHUNK -> read(ctx, e.getReadChunk());
      case CLOSE -> {
        boolean discard = e.getClose().getDiscard();
        onExecutor(ctx, () -> end(discard));
        ctx.close();
      }
      case HAND_OFF_CHUNK -> handOffChunk(ctx, e.getHandOffChunk());
      default -> fail(ctx, "a receiver does not send " + e.getBodyCase());
    }
  }

  /**
   * A stand-in pushes a hand-off shipment ({@link HandOffDesk}): its chunks are put together on the
   * event loop (no I/O, bounded by {@link HandOffShipments#MAX_SHIPMENT_BYTES}); anything malformed
   * ends the connection with an error, never the node. A connection carries one shipment and no
   * snapshot session.
   */
  private void handOffChunk(ChannelHandlerContext ctx, HandOffChunk chunk) {
    if (opened || context.handOffs() == null) {
      fail(ctx, "no hand-off shipment on this connection");
      return;
    }
    if (handOff == null) {
      handOff = new HandOffShipments.Assembly();
    }
    long size = chunk.getEntries().size();
    if (!context.handOffs().reserve(size)) {
      releaseHandOff();
      fail(ctx, "hand-off shipments being received exceed the node's budget");
      return;
    }
    handOffReserved += size;
    HandOffShipment whole;
    try {
      whole = handOff.add(chunk);
    } catch (WireDecodeException e) {
      releaseHandOff();
      fail(ctx, "hand-off shipment refused: " + e.getMessage());
      return;
    }
    if (whole == null) {
      return;
    }
    releaseHandOff(); // the core holds it now, as it holds any input
    boolean imported = context.handOffs().received(sender, whole);
    ctx.writeAndFlush(
        envelope()
            .setHandOffImported(
                HandOffImported.newBuilder()
                    .setRange(whole.range())
                    .setTerm(whole.term())
                    .setImported(imported))
            .build());
  }

  /** Gives back this connection's share of the hand-off receive budget. Event loop only. */
  private void releaseHandOff() {
    if (handOffReserved > 0) {
      context.handOffs().unreserve(handOffReserved);
      handOffReserved = 0;
    }
  }

  /** Only a node of the cluster, the one its certificate names, and the same one throughout. */
  private boolean admitted(ChannelHandlerContext ctx, int claimed) {
    if (context.security().authenticates()) {
      CertificateIdentity id = context.security().identity(ctx.channel());
      if (!(id instanceof CertificateIdentity.Node n) || n.nodeId() != claimed) {
        fail(ctx, "frame claims node " + claimed + ", the certificate is of " + id);
        return false;
      }
    }
    if (sender == -1) {
      sender = claimed;
    } else if (sender != claimed) {
      fail(ctx, "sender changed from node " + sender + " to node " + claimed);
      return false;
    }
    return true;
  }

  private void open(ChannelHandlerContext ctx, OpenStream request) {
    if (opened || handOff != null) {
      fail(ctx, "a session opens once");
      return;
    }
    opened = true;
    if (context.metrics().sourceSessions.incrementAndGet()
        > context.settings().maxSourceSessions()) {
      context.metrics().sourceSessions.decrementAndGet();
      fail(ctx, "busy: already serving " + context.settings().maxSourceSessions() + " streams");
      return;
    }
    counted = true;
    if (request.getVerifiedCount() > StreamWire.MAX_FILES) {
      fail(
          ctx,
          "verified lists "
              + request.getVerifiedCount()
              + " files, at most "
              + StreamWire.MAX_FILES);
      return;
    }
    Map<String, Long> verified = new HashMap<>();
    for (FileProgress p : request.getVerifiedList()) {
      if (!StreamWire.validFileName(p.getName()) || p.getOffset() < 0) {
        fail(ctx, "verified names an invalid file or offset");
        return;
      }
      verified.put(p.getName(), p.getOffset());
    }
    long from = request.getFromTokenExclusive();
    long to = request.getToTokenInclusive();
    String asked = request.getSnapshotId();
    onExecutor(
        ctx,
        () -> {
          SnapshotStore.Snapshot s = context.snapshots().open(asked, from, to, verified);
          snapshot = s;
          StreamManifest.Builder m = StreamManifest.newBuilder().setSnapshotId(s.id());
          for (ManifestFile f : s.files()) {
            m.addFiles(
                StreamFile.newBuilder()
                    .setName(f.name())
                    .setLength(f.length())
                    .setCrc32C(f.crc32c()));
          }
          LOG.log(
              Level.INFO,
              "stream to node {0}: range ({1}, {2}] as snapshot {3} ({4} files){5}",
              sender,
              from,
              to,
              s.id(),
              s.files().size(),
              s.id().equals(asked) ? ", resumed" : "");
          ctx.writeAndFlush(envelope().setManifest(m).build());
        });
  }

  private void read(ChannelHandlerContext ctx, ReadChunk request) {
    if (!opened) {
      fail(ctx, "ReadChunk before OpenStream");
      return;
    }
    int length = request.getLength();
    if (length < 1 || length > StreamWire.MAX_CHUNK_BYTES) {
      fail(
          ctx,
          "chunk length "
              + Integer.toUnsignedString(length)
              + " outside [1, "
              + StreamWire.MAX_CHUNK_BYTES
              + "]");
      return;
    }
    if (outstandingBytes.addAndGet(length) > MAX_OUTSTANDING_BYTES) {
      fail(ctx, "more than " + MAX_OUTSTANDING_BYTES + " bytes asked and unanswered");
      return;
    }
    int index = request.getFileIndex();
    long offset = request.getOffset();
    long delayNanos = context.throttle().reserve(length);
    Runnable work =
        guarded(
            ctx,
            () -> {
              if (snapshot == null || ended) {
                return;
              }
              if (index < 0 || index >= snapshot.files().size()) {
                throw new StreamException(
                    "file index " + Integer.toUnsignedString(index) + " is not in the snapshot");
              }
              ManifestFile f = snapshot.files().get(index);
              if (offset < 0 || offset > f.length()) {
                throw new StreamException(
                    "offset "
                        + Long.toUnsignedString(offset)
                        + " outside "
                        + f.name()
                        + " ("
                        + f.length()
                        + " bytes)");
              }
              sendChunk(ctx, index, f, offset, (int) Math.min(length, f.length() - offset), length);
            });
    try {
      if (delayNanos == 0) {
        context.executor().execute(work);
      } else {
        context.executor().schedule(work, delayNanos, TimeUnit.NANOSECONDS);
      }
    } catch (RejectedExecutionException e) {
      ctx.close(); // the node is stopping
    }
  }

  private void sendChunk(
      ChannelHandlerContext ctx, int index, ManifestFile f, long offset, int n, int asked)
      throws IOException {
    FileChannel ch = open.get(index);
    if (ch == null) {
      ch = FileChannel.open(snapshot.directory().resolve(f.name()), StandardOpenOption.READ);
      open.put(index, ch);
    }
    byte[] data = new byte[n];
    ByteBuffer buffer = ByteBuffer.wrap(data);
    while (buffer.hasRemaining()) {
      if (ch.read(buffer, offset + buffer.position()) < 0) {
        throw new IOException(f.name() + " is shorter than its manifest says");
      }
    }
    int crc = Crc32c.of(data, 0, n);
    byte[] sent = context.faults().onChunk(f.name(), offset, data);
    Chunk chunk =
        Chunk.newBuilder()
            .setFileIndex(index)
            .setOffset(offset)
            .setData(UnsafeByteOperations.unsafeWrap(sent))
            .setCrc32C(crc)
            .build();
    ctx.writeAndFlush(envelope().setChunk(chunk).build())
        .addListener(
            done -> {
              outstandingBytes.addAndGet(-asked);
              if (done.isSuccess()) {
                context.metrics().bytesSent.increment(n);
              }
            });
  }

  private void end(boolean discard) throws IOException {
    if (ended) {
      return;
    }
    ended = true;
    for (FileChannel ch : open.values()) {
      ch.close();
    }
    open.clear();
    if (snapshot != null) {
      context.snapshots().unuse(snapshot.id());
      if (discard) {
        context.snapshots().release(snapshot.id());
      }
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseHandOff(); // a shipment cut off half-way holds nothing
    if (counted) {
      counted = false;
      context.metrics().sourceSessions.decrementAndGet();
    }
    onExecutor(ctx, () -> end(false));
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      LOG.log(
          Level.WARNING, "closing idle stream connection from {0}", ctx.channel().remoteAddress());
      ctx.close();
    }
    ctx.fireUserEventTriggered(evt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.log(
        Level.WARNING,
        "closing stream connection from {0}: {1}",
        ctx.channel().remoteAddress(),
        cause.toString());
    ctx.close();
  }

  private interface Work {
    void run() throws IOException;
  }

  private void onExecutor(ChannelHandlerContext ctx, Work work) {
    try {
      context.executor().execute(guarded(ctx, work));
    } catch (RejectedExecutionException e) {
      ctx.close();
    }
  }

  /** Any failure of the session's work ends the session, never the node. */
  private Runnable guarded(ChannelHandlerContext ctx, Work work) {
    return () -> {
      try {
        work.run();
      } catch (IOException | RuntimeException e) {
        LOG.log(Level.WARNING, "stream to node " + sender + " failed", e);
        fail(ctx, e.getMessage());
        try {
          end(false);
        } catch (IOException closing) {
          LOG.log(Level.WARNING, "closing stream files failed", closing);
        }
      }
    };
  }

  private void fail(ChannelHandlerContext ctx, String reason) {
    LOG.log(Level.WARNING, "stream from {0} refused: {1}", ctx.channel().remoteAddress(), reason);
    ctx.writeAndFlush(
            envelope()
                .setError(StreamError.newBuilder().setMessage(StreamWire.errorText(reason)))
                .build())
        .addListener(f -> ctx.close());
  }

  private StreamEnvelope.Builder envelope() {
    return StreamWire.envelope(context.clusterId(), context.selfNodeId());
  }
}
