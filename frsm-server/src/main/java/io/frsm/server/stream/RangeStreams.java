package io.frsm.server.stream;

import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.lsm.LsmEngine;
import io.frsm.transport.stream.StreamAcceptor;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * A node's range streaming, both sides (docs/formats/streaming.md): as a source it serves range
 * snapshots on stream connections the peer transport hands over ({@link #acceptor()}); as a
 * receiver it copies ranges from other nodes into its engine ({@link #copy}). Snapshots live in
 * {@code <data>/stream-out}, staging directories in {@code <data>/stream-in}. Source work runs on
 * one thread, receiving on another: file I/O never runs on the event loops. Thread-safe.
 */
public final class RangeStreams implements RangeCopier, AutoCloseable {
  private static final System.Logger LOG = System.getLogger(RangeStreams.class.getName());
  static final String SNAPSHOTS = "stream-out";
  static final String STAGING = "stream-in";

  private final ReceiverContext receiver;
  private final StreamSource source;
  private final HandOffDesk handOffs;
  private final SnapshotStore snapshots;
  private final StreamMetrics metrics;
  private final ScheduledExecutorService sourceExecutor;
  private final ScheduledExecutorService receiveExecutor;
  private final Map<Path, ReceiveSession> running = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** Test seams; production passes {@link #production(LsmEngine)}. */
  record Parts(
      SnapshotStore.RangeExporter exporter,
      ReceiverContext.TableImporter importer,
      ReceiverContext.UsableSpace space,
      ChunkFaults faults) {}

  /**
   * Runs an import of copied tables into the engine: a node fences its clock cache around it, so no
   * cell cached before the import is served after it (docs/DESIGN.md "LSM", the cache's bypass).
   */
  @FunctionalInterface
  public interface ImportFence {
    void around(Importing importing) throws IOException;

    /** The import itself. */
    @FunctionalInterface
    interface Importing {
      void run() throws IOException;
    }

    /** No cache in front of the engine. */
    static ImportFence none() {
      return Importing::run;
    }
  }

  static Parts production(LsmEngine engine) {
    return production(engine, ImportFence.none());
  }

  static Parts production(LsmEngine engine, ImportFence fence) {
    return new Parts(
        engine::exportRange,
        (files, from, to) -> fence.around(() -> engine.importRingRange(files, from, to)),
        ReceiverContext.UsableSpace.fileStore(),
        ChunkFaults.none());
  }

  /**
   * Starts a node's range streams: the source side for the peer port's stream connections and the
   * receiving side, which dials other nodes.
   *
   * @param peerAddresses a node's peer address (where its stream connections are accepted), or null
   * @param loops the node's event loops, for the connections this node dials as a receiver
   * @param fence run around every import into {@code engine} (e.g. the clock cache's fence)
   * @param dialedLimits the frames of the stream connections this node dials are held to these
   *     limits, which should share the node's frame budget ({@link
   *     TransportEventLoops#nodeFrameBudget})
   */
  public static RangeStreams start(
      int selfNodeId,
      String clusterId,
      ChannelSecurity security,
      TransportEventLoops loops,
      IntFunction<InetSocketAddress> peerAddresses,
      Path dataDirectory,
      LsmEngine engine,
      ImportFence fence,
      StreamSettings settings,
      MeterRegistry meters,
      InboundLimits dialedLimits)
      throws IOException {
    return new RangeStreams(
        selfNodeId,
        clusterId,
        security,
        loops,
        peerAddresses,
        dataDirectory,
        production(engine, fence),
        settings,
        meters,
        dialedLimits);
  }

  RangeStreams(
      int selfNodeId,
      String clusterId,
      ChannelSecurity security,
      TransportEventLoops loops,
      IntFunction<InetSocketAddress> peerAddresses,
      Path dataDirectory,
      Parts parts,
      StreamSettings settings,
      MeterRegistry meters)
      throws IOException {
    this(
        selfNodeId,
        clusterId,
        security,
        loops,
        peerAddresses,
        dataDirectory,
        parts,
        settings,
        meters,
        null);
  }

  RangeStreams(
      int selfNodeId,
      String clusterId,
      ChannelSecurity security,
      TransportEventLoops loops,
      IntFunction<InetSocketAddress> peerAddresses,
      Path dataDirectory,
      Parts parts,
      StreamSettings settings,
      MeterRegistry meters,
      InboundLimits dialedLimits)
      throws IOException {
    Path stagingRoot = dataDirectory.resolve(STAGING);
    Files.createDirectories(stagingRoot);
    this.metrics = new StreamMetrics(meters);
    this.snapshots =
        new SnapshotStore(
            dataDirectory.resolve(SNAPSHOTS),
            parts.exporter(),
            settings.snapshotTtl().toMillis(),
            System::currentTimeMillis);
    this.sourceExecutor =
        Executors.newSingleThreadScheduledExecutor(named("frsm-stream-source-" + selfNodeId));
    ScheduledThreadPoolExecutor receiving =
        new ScheduledThreadPoolExecutor(1, named("frsm-stream-receive-" + selfNodeId));
    // A stop abandons the copies: their paced requests and redials are dropped, not waited for.
    receiving.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.receiveExecutor = receiving;
    this.receiver =
        new ReceiverContext(
            selfNodeId,
            clusterId,
            security,
            loops,
            peerAddresses,
            stagingRoot,
            parts.importer(),
            parts.space(),
            settings,
            new Throttle(settings.maxBytesPerSecond(), System::nanoTime),
            metrics,
            dialedLimits);
    this.handOffs = new HandOffDesk(receiver);
    this.source =
        new StreamSource(
            new StreamSource.SourceContext(
                selfNodeId,
                clusterId,
                security,
                snapshots,
                settings,
                new Throttle(settings.maxBytesPerSecond(), System::nanoTime),
                parts.faults(),
                metrics,
                sourceExecutor,
                handOffs));
    snapshots.sweep();
    sweepStaging(stagingRoot, settings.snapshotTtl().toMillis());
    long sweepMillis = Math.max(1_000, settings.snapshotTtl().toMillis() / 4);
    sourceExecutor.scheduleWithFixedDelay(
        this::sweep, sweepMillis, sweepMillis, TimeUnit.MILLISECONDS);
  }

  private static ThreadFactory named(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  /** Where the peer transport hands connections that announced a stream. */
  public StreamAcceptor acceptor() {
    return source;
  }

  /** What the stream connections this node dials are held to (null: only the frame limit). */
  public InboundLimits dialedLimits() {
    return receiver.dialedLimits();
  }

  /** Hand-off shipments, sent and received (docs/PROTOCOL.md "Hand-off instead of a scan"). */
  public HandOffDesk handOffs() {
    return handOffs;
  }

  /**
   * Copies the tokens {@code (fromTokenExclusive, toTokenInclusive]} — the bounds of {@code
   * io.frsm.server.ring.TokenRange}, wrapping past {@link Long#MAX_VALUE} when {@code from >= to},
   * the whole ring when equal — from {@code sourceNodeId}'s engine into this node's, all files at
   * once. The future fails with a {@link StreamException} saying why (nothing imported then);
   * cancelling it stops both sides and removes the staging directory. At most one copy of a range
   * from one source runs at a time.
   */
  @Override
  public CompletableFuture<Void> copy(
      int sourceNodeId, long fromTokenExclusive, long toTokenInclusive) {
    CompletableFuture<Void> result = new CompletableFuture<>();
    if (closed) {
      result.completeExceptionally(new StreamException("range streams are closed"));
      return result;
    }
    if (sourceNodeId == receiver.selfNodeId() || sourceNodeId < 0) {
      result.completeExceptionally(
          new IllegalArgumentException("cannot copy a range from node " + sourceNodeId));
      return result;
    }
    ReceiveSession[] holder = new ReceiveSession[1];
    ReceiveSession session =
        new ReceiveSession(
            receiver,
            receiveExecutor,
            sourceNodeId,
            fromTokenExclusive,
            toTokenInclusive,
            result,
            () -> running.remove(holder[0].stagingDirectory(), holder[0]));
    holder[0] = session;
    if (running.putIfAbsent(session.stagingDirectory(), session) != null) {
      result.completeExceptionally(
          new StreamException(
              "a copy of range ("
                  + fromTokenExclusive
                  + ", "
                  + toTokenInclusive
                  + "] from node "
                  + sourceNodeId
                  + " is running already"));
      return result;
    }
    result.whenComplete(
        (v, e) -> {
          if (result.isCancelled()) {
            submit(session::cancel);
          }
        });
    submit(() -> session.run(null, session::start));
    return result;
  }

  private void submit(Runnable r) {
    try {
      receiveExecutor.execute(r);
    } catch (RejectedExecutionException e) {
      // closed: close() failed the sessions
    }
  }

  private void sweep() {
    try {
      snapshots.sweep();
    } catch (IOException | RuntimeException e) {
      LOG.log(Level.WARNING, "sweeping stream snapshots failed", e);
    }
  }

  /** Staging left by a crash that no copy resumed within the time to live: its snapshot is gone. */
  private void sweepStaging(Path root, long ttlMillis) throws IOException {
    long now = System.currentTimeMillis();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path dir : dirs) {
        if (now - Files.getLastModifiedTime(dir).toMillis() > ttlMillis) {
          LOG.log(Level.INFO, "removing stale stream staging directory {0}", dir);
          StagingArea.deleteTree(dir);
        }
      }
    }
  }

  /** Copies running now (tests, status). */
  public int runningCopies() {
    return running.size();
  }

  /**
   * Stops both sides: running copies fail (their staging directories are kept, as after a crash,
   * for a copy after the restart to resume), snapshots stay for their time to live.
   */
  @Override
  public void close() {
    closed = true;
    // Abandoned on their own thread, after the step running now: an interrupt could fail a step
    // half-way, and a failed copy removes its staging directory.
    for (ReceiveSession s : running.values()) {
      submit(s::abandon);
    }
    receiveExecutor.shutdown();
    sourceExecutor.shutdownNow();
    try {
      if (!receiveExecutor.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.log(Level.WARNING, "range copies did not stop within 30 s; interrupting them");
        receiveExecutor.shutdownNow();
      }
      sourceExecutor.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    running.clear();
    metrics.close();
  }
}
