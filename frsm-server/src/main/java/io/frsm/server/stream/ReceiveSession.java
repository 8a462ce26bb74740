package io.frsm.server.stream;

import com.google.protobuf.ByteString;
import io.frsm.client.transport.ConnectionPreamble;
import io.frsm.transport.proto.Chunk;
import io.frsm.transport.proto.CloseStream;
import io.frsm.transport.proto.FileProgress;
import io.frsm.transport.proto.OpenStream;
import io.frsm.transport.proto.ReadChunk;
import io.frsm.transport.proto.StreamEnvelope;
import io.frsm.transport.proto.StreamManifest;
import io.frsm.transport.stream.StreamFrame;
import io.frsm.transport.stream.StreamFraming;
import io.frsm.transport.stream.StreamWire;
import io.netty.channel.Channel;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One copy on the receiver (docs/formats/streaming.md "Flow"): dials the source's peer port with
 * the stream preamble (same mutual TLS; the source must present its own node's certificate), opens
 * or resumes a snapshot of the range, asks for chunks a window at a time (throttled), verifies each
 * ({@link ChunkLedger}) and writes it into the staging directory, checks each whole file's CRC32C
 * once fsynced, and when every file is in, fsyncs the directory and imports all files at once. A
 * lost connection is redialed, resuming from the durable progress, up to {@code reconnects} times;
 * a source with no known peer address (not registered) is looked up twice, then the copy fails. On
 * success, failure or cancel the staging directory is removed; only a crash of this process leaves
 * it, for the next copy of the range to resume.
 *
 * <p>All state belongs to the receiver executor (one thread); Netty events are handed to it, tagged
 * with the connection they came from so events of a replaced connection are ignored.
 */
final class ReceiveSession {
  private static final System.Logger LOG = System.getLogger(ReceiveSession.class.getName());

  /**
   * Verified bytes, or time, between two durable progress checkpoints: what a crash of this process
   * may cost to fetch again.
   */
  private static final long CHECKPOINT_BYTES = 64L << 20;

  private static final long CHECKPOINT_NANOS = 1_000_000_000L;

  private final ReceiverContext context;
  private final ScheduledExecutorService executor;
  private final int source;
  private final long from;
  private final long to;
  private final CompletableFuture<Void> result;
  private final StagingArea staging;
  private final Runnable onEnd;
  private final StreamFraming framing;

  /** Lookups of a source's peer address that found none before the copy fails (see dial). */
  static final int UNADDRESSED_LOOKUPS = 2;

  private static final long UNADDRESSED_RETRY_MILLIS = 250;

  private Channel channel;
  private int attempts;
  private int unaddressedLookups;
  private String snapshotId = "";
  private List<ManifestFile> files = List.of();
  private long[] verified = new long[0];
  private ChunkLedger ledger;
  private final StagedFiles staged;
  private long sinceCheckpoint;
  private long lastCheckpointNanos;
  private long receivedBytes;
  private long startNanos;

  /** When the first manifest arrived (the source's export done) and when the last chunk did. */
  private long transferStartNanos;

  private long transferEndNanos;
  private boolean pumpScheduled;
  private boolean ended;

  ReceiveSession(
      ReceiverContext context,
      ScheduledExecutorService executor,
      int source,
      long from,
      long to,
      CompletableFuture<Void> result,
      Runnable onEnd) {
    this.context = context;
    this.executor = executor;
    this.source = source;
    this.from = from;
    this.to = to;
    this.result = result;
    this.onEnd = onEnd;
    this.staging = new StagingArea(context.stagingRoot(), source, from, to);
    this.staged = new StagedFiles(staging);
    this.framing = new StreamFraming(context.clusterId());
  }

  Path stagingDirectory() {
    return staging.directory();
  }

  /** Executor: resumes what a crashed predecessor left, then dials. */
  void start() {
    context.metrics().receiveSessions.incrementAndGet();
    startNanos = System.nanoTime();
    StagingArea.Progress p = staging.load();
    if (p != null) {
      snapshotId = p.snapshotId();
      files = p.files();
      verified = p.verified();
    }
    dial();
  }

  private void dial() {
    InetSocketAddress address = context.peerAddresses().apply(source);
    if (address == null) {
      unaddressed(); // not counted as a lost connection: nothing to resume with
      return;
    }
    channel = StreamDialer.dial(context, source, address, events);
  }

  /** How this session names its copy in a failure: {@code copy of range (from, to] from node N}. */
  private String copyOf() {
    return "copy of range (" + from + ", " + to + "] from node " + source;
  }

  /**
   * The source has no known peer address: it is not registered in ZooKeeper (dead, being replaced,
   * or restarting). Looked up {@link #UNADDRESSED_LOOKUPS} times in all, {@link
   * #UNADDRESSED_RETRY_MILLIS} apart, then the copy fails at once, so the caller tries another
   * voter and comes back to this one later, instead of the session spending the whole redial
   * back-off (about 13 s) on a node nobody can dial.
   */
  private void unaddressed() {
    unaddressedLookups++;
    if (unaddressedLookups >= UNADDRESSED_LOOKUPS) {
      end(
          new StreamException(
              copyOf()
                  + " failed: node "
                  + source
                  + " has no known peer address (it is not registered in ZooKeeper) after "
                  + unaddressedLookups
                  + " lookups"));
      return;
    }
    executor.schedule(
        () ->
            run(
                null,
                () -> {
                  if (!ended) {
                    dial();
                  }
                }),
        UNADDRESSED_RETRY_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** Connection events, each handed to the executor tagged with its connection. */
  private final StreamDialer.Events events =
      new StreamDialer.Events() {
        @Override
        public void ready(Channel ch) {
          onExecutor(ch, () -> ReceiveSession.this.ready(ch));
        }

        @Override
        public void frame(Channel ch, StreamFrame frame) {
          onExecutor(ch, () -> onFrame(ch, frame));
        }

        @Override
        public void failed(Channel ch, String why) {
          onExecutor(ch, () -> lost(ch, why));
        }

        @Override
        public void closed(Channel ch) {
          onExecutor(ch, () -> lost(ch, "connection to node " + source + " closed"));
        }
      };

  /** The connection is usable (TLS identity verified, or plaintext and active): open. */
  private void ready(Channel ch) {
    ConnectionPreamble.write(ch, StreamWire.preamble());
    OpenStream.Builder open =
        OpenStream.newBuilder()
            .setFromTokenExclusive(from)
            .setToTokenInclusive(to)
            .setSnapshotId(snapshotId);
    for (int i = 0; i < files.size(); i++) {
      open.addVerified(
          FileProgress.newBuilder().setName(files.get(i).name()).setOffset(verified[i]));
    }
    ch.writeAndFlush(envelope().setOpen(open).build());
  }

  private void onFrame(Channel ch, StreamFrame frame) throws IOException {
    if (frame.senderNodeId() != source) {
      throw new ProtocolViolation(
          "frame from node " + frame.senderNodeId() + " on the stream of node " + source);
    }
    StreamEnvelope e = frame.envelope();
    switch (e.getBodyCase()) {
      case MANIFEST -> onManifest(ch, e.getManifest());
      case CHUNK -> onChunk(ch, e.getChunk());
      case ERROR ->
          lost(
              ch,
              "node "
                  + source
                  + " ended the stream: "
                  + StreamWire.errorText(e.getError().getMessage()));
      default -> throw new ProtocolViolation("a source does not send " + e.getBodyCase());
    }
  }

  private void onManifest(Channel ch, StreamManifest m) throws IOException {
    if (ledger != null) {
      throw new ProtocolViolation("a second manifest");
    }
    if (transferStartNanos == 0) {
      transferStartNanos = System.nanoTime();
    }
    List<ManifestFile> offered = ManifestCheck.files(m);
    if (!m.getSnapshotId().equals(snapshotId) || !offered.equals(files)) {
      if (!snapshotId.isEmpty()) {
        LOG.log(
            Level.INFO,
            "copy of ({0}, {1}] from node {2}: snapshot {3} is gone, starting over with {4}",
            from,
            to,
            source,
            snapshotId,
            m.getSnapshotId());
      }
      staging.reset();
      snapshotId = m.getSnapshotId();
      files = offered;
      verified = new long[files.size()];
    }
    ManifestCheck.requireSpace(
        files,
        verified,
        staging.directory(),
        context.space().usableBytes(staging.directory()),
        "the copy of range (" + from + ", " + to + "] from node " + source);
    staged.open(files, verified);
    saveProgress();
    ledger =
        new ChunkLedger(
            files, verified, context.settings().chunkBytes(), context.settings().maxChunkRetries());
    if (ledger.complete()) {
      // Nothing to ask for — a range without tables, or every file verified before a restart —
      // so no chunk will come to finish the copy: it finishes now.
      finish(ch);
      return;
    }
    pump(ch);
  }

  private void pump(Channel ch) {
    if (pumpScheduled || ended) {
      return;
    }
    while (ledger.outstanding() < context.settings().windowChunks()) {
      ChunkLedger.Request r = ledger.next();
      if (r == null) {
        break;
      }
      long wait = context.throttle().reserve(r.length());
      ch.writeAndFlush(
          envelope()
              .setReadChunk(
                  ReadChunk.newBuilder()
                      .setFileIndex(r.file())
                      .setOffset(r.offset())
                      .setLength(r.length()))
              .build());
      if (wait > 0) {
        pumpScheduled = true;
        executor.schedule(
            () ->
                run(
                    ch,
                    () -> {
                      pumpScheduled = false;
                      pump(ch);
                    }),
            wait,
            TimeUnit.NANOSECONDS);
        return;
      }
    }
  }

  private void onChunk(Channel ch, Chunk c) throws IOException {
    if (ledger == null) {
      throw new ProtocolViolation("a chunk before the manifest");
    }
    ByteString data = c.getData();
    int actual = Crc32c.of(data.asReadOnlyByteBuffer());
    int file = c.getFileIndex();
    long offset = c.getOffset();
    ChunkLedger.Verdict verdict;
    long retriesBefore = ledger.chunkRetries();
    verdict = ledger.accept(file, offset, data.size(), c.getCrc32C(), actual);
    if (verdict == ChunkLedger.Verdict.RESEND) {
      context.metrics().chunkRetries.increment(ledger.chunkRetries() - retriesBefore);
      LOG.log(
          Level.WARNING,
          "copy from node {0}: chunk of {1} at {2} failed verification; asked again",
          source,
          files.get(file).name(),
          offset);
      pump(ch);
      return;
    }
    staged.write(file, offset, data.asReadOnlyByteBuffer());
    ledger.written(file, offset, data.size());
    receivedBytes += data.size();
    sinceCheckpoint += data.size();
    context.metrics().bytesReceived.increment(data.size());
    if (ledger.fileComplete(file)) {
      staged.completeFile(file, snapshotId);
      context.metrics().filesReceived.increment();
    }
    if (sinceCheckpoint >= CHECKPOINT_BYTES
        || System.nanoTime() - lastCheckpointNanos >= CHECKPOINT_NANOS) {
      saveProgress();
    }
    if (ledger.complete()) {
      finish(ch);
    } else {
      pump(ch);
    }
  }

  /** Fsyncs what was written since the last checkpoint, then records it as verified. */
  private void saveProgress() throws IOException {
    staged.forceWritten();
    verified = ledger == null ? verified : ledger.verifiedOffsets();
    staging.save(new StagingArea.Progress(snapshotId, files, verified));
    sinceCheckpoint = 0;
    lastCheckpointNanos = System.nanoTime();
  }

  private void finish(Channel ch) throws IOException {
    transferEndNanos = System.nanoTime();
    saveProgress();
    staged.close();
    StagingArea.syncDirectory(staging.directory());
    context.importer().importRange(staged.nonEmptyPaths(), from, to);
    ch.writeAndFlush(envelope().setClose(CloseStream.newBuilder().setDiscard(true)).build());
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    context.metrics().throughput.record(receivedBytes / Math.max(seconds, 1e-9));
    context.metrics().copiesCompleted.increment();
    LOG.log(
        Level.INFO,
        "copy of ({0}, {1}] from node {2} imported: {3} files, {4} bytes received; {5} s in"
            + " all, of which export {6} s, transfer {7} s ({8} MB/s), import {9} s",
        from,
        to,
        source,
        files.size(),
        receivedBytes,
        String.format("%.2f", seconds),
        String.format("%.2f", (transferStartNanos - startNanos) / 1e9),
        String.format("%.2f", (transferEndNanos - transferStartNanos) / 1e9),
        String.format(
            "%.1f",
            receivedBytes / 1e6 / Math.max((transferEndNanos - transferStartNanos) / 1e9, 1e-9)),
        String.format("%.2f", (System.nanoTime() - transferEndNanos) / 1e9));
    end(null);
  }

  /** The connection ended or the source refused: resume on a new one, or give up. */
  private void lost(Channel ch, String why) {
    if (ended || (ch != null && ch != channel)) {
      return;
    }
    if (channel != null) {
      channel.close();
      channel = null;
    }
    if (attempts >= context.settings().reconnects()) {
      end(new StreamException(copyOf() + " failed after " + (attempts + 1) + " attempts: " + why));
      return;
    }
    attempts++;
    try {
      if (ledger != null) {
        saveProgress();
      }
    } catch (IOException e) {
      end(
          new StreamException(
              "saving stream progress in " + staging.directory() + " failed: " + e.getMessage(),
              e));
      return;
    }
    ledger = null;
    pumpScheduled = false; // a throttled pump of the old connection is dropped with it
    staged.close();
    long backoffMillis = Math.min(10_000, 200L << Math.min(attempts, 6));
    LOG.log(
        Level.WARNING,
        "copy of ({0}, {1}] from node {2}: {3}; resuming in {4} ms (attempt {5})",
        from,
        to,
        source,
        why,
        backoffMillis,
        attempts + 1);
    executor.schedule(
        () ->
            run(
                null,
                () -> {
                  if (!ended) {
                    dial();
                  }
                }),
        backoffMillis,
        TimeUnit.MILLISECONDS);
  }

  /** Executor: the caller cancelled the future. */
  void cancel() {
    if (ended) {
      return;
    }
    Channel ch = channel;
    if (ch != null && ch.isActive()) {
      ch.writeAndFlush(envelope().setClose(CloseStream.newBuilder().setDiscard(true)).build());
    }
    end(new java.util.concurrent.CancellationException("cancelled"));
  }

  /**
   * Executor: the node stops. The copy fails, but the staging directory stays, as after a crash,
   * for a copy after the restart to resume.
   */
  void abandon() {
    if (ended) {
      return;
    }
    ended = true;
    staged.close();
    if (channel != null) {
      channel.close();
    }
    context.metrics().receiveSessions.decrementAndGet();
    result.completeExceptionally(
        new StreamException(
            "the node stopped during the copy of range (" + from + ", " + to + "]"));
  }

  /** Ends the session: closes the connection and files, removes the staging directory. */
  private void end(Throwable failure) {
    if (ended) {
      return;
    }
    ended = true;
    staged.close();
    if (channel != null) {
      Channel ch = channel;
      channel = null;
      ch.close(); // after any CloseStream written before: the loop runs both in order
    }
    try {
      staging.delete();
    } catch (IOException e) {
      LOG.log(Level.WARNING, "could not remove staging directory " + staging.directory(), e);
    }
    context.metrics().receiveSessions.decrementAndGet();
    onEnd.run();
    if (failure == null) {
      result.complete(null);
    } else {
      context.metrics().copiesFailed.increment();
      LOG.log(
          Level.WARNING,
          "copy of ({0}, {1}] from node {2} ended: {3}",
          from,
          to,
          source,
          failure.getMessage());
      result.completeExceptionally(failure);
    }
  }

  interface Step {
    void run() throws IOException;
  }

  /** Runs a step of this session; a failure of a protocol or of the disk ends the session. */
  void run(Channel from, Step step) {
    if (ended || (from != null && from != channel)) {
      return;
    }
    try {
      step.run();
    } catch (ProtocolViolation e) {
      lost(from, e.getMessage());
    } catch (StreamException e) {
      end(e);
    } catch (java.util.concurrent.RejectedExecutionException stopping) {
      // A paced request or redial could not be scheduled: the node is stopping (its executor shut
      // down). As any stop, this keeps the staging directory for the copy after the restart.
      abandon();
    } catch (IOException | RuntimeException e) {
      end(new StreamException(copyOf() + " failed: " + e, e));
    }
  }

  private void onExecutor(Channel ch, Step step) {
    try {
      executor.execute(() -> run(ch, step));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      ch.close(); // the node is stopping; the session ends with the executor
    }
  }

  private StreamEnvelope.Builder envelope() {
    return StreamWire.envelope(context.clusterId(), context.selfNodeId());
  }
}
