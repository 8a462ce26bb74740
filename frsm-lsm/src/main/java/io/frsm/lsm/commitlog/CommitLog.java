package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FileSystem;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;

/**
 * The striped, group-committed commit log (docs/DESIGN.md "LSM"; format in
 * docs/formats/commitlog.md).
 *
 * <p>A key always goes to stripe {@code floorMod(token, stripes)}, so whoever must reply about a
 * key's durable state waits for that stripe alone ({@link #awaitSynced}). Each stripe has one
 * writer thread that writes everything queued in one batch and syncs once; a record's future
 * completes only after that sync.
 *
 * <p>Lifecycle: {@link #open} replays what is on disk and starts the writers; {@link #rotate} cuts
 * a checkpoint when the engine swaps memtables; {@link #discardBefore} deletes the segments that a
 * flushed memtable made redundant; {@link #close} drains and stops.
 *
 * <p>Thread-safe. Callers must not append concurrently with {@link #rotate} if they rely on its
 * checkpoint (the engine holds a read lock for appends and a write lock for rotation).
 */
public final class CommitLog implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(CommitLog.class.getName());

  private final CommitLogConfig config;
  private final CommitLogStripe[] stripes;
  private final CommitLogCheckpoint replayCheckpoint;
  private volatile boolean closed;

  private CommitLog(
      CommitLogConfig config, CommitLogStripe[] stripes, CommitLogCheckpoint replayCheckpoint) {
    this.config = config;
    this.stripes = stripes;
    this.replayCheckpoint = replayCheckpoint;
  }

  /**
   * Replays every existing segment of every stripe (order-free: callers merge cells with the
   * commutative merge join), then opens NEW segments for appends (ids above every existing one).
   * Existing segments are kept until discarded; {@link #replayCheckpoint()} covers exactly them.
   *
   * @param replayed receives every intact record's cell, on the calling thread
   * @throws io.frsm.lsm.CorruptionException for a damaged segment header, or damage in a segment
   *     that acknowledged records may follow (see {@link CommitLogReader})
   */
  public static CommitLog open(
      FileSystem fs, CommitLogConfig config, MeterRegistry registry, Consumer<Cell> replayed)
      throws IOException {
    return open(fs, config, registry, replayed, GroupCommitGatherer.WindowWait.PARK);
  }

  /** As above, with the stripes' group-commit windows waited out by {@code windowWait} (tests). */
  static CommitLog open(
      FileSystem fs,
      CommitLogConfig config,
      MeterRegistry registry,
      Consumer<Cell> replayed,
      GroupCommitGatherer.WindowWait windowWait)
      throws IOException {
    Objects.requireNonNull(fs, "fs");
    Objects.requireNonNull(config, "config");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(replayed, "replayed");
    List<Path> directories = config.stripeDirectories();
    CommitLogReader reader =
        new CommitLogReader(fs, config.skipCorruptSegmentTail(), config.damagedSegmentTail());
    List<StripeReplay> existing = new ArrayList<>();
    for (int i = 0; i < directories.size(); i++) {
      existing.add(replayStripe(fs, reader, i, directories.get(i), replayed));
    }
    CommitLogStripe[] stripes = new CommitLogStripe[directories.size()];
    long[] firstNewIds = new long[stripes.length];
    try {
      for (int i = 0; i < stripes.length; i++) {
        StripeReplay replay = existing.get(i);
        stripes[i] =
            new CommitLogStripe(
                i,
                directories.get(i),
                fs,
                config,
                registry,
                replay.live(),
                replay.highestId(),
                windowWait);
        firstNewIds[i] = stripes[i].nextSegmentId();
        stripes[i].start();
      }
    } catch (IOException | RuntimeException e) {
      for (CommitLogStripe stripe : stripes) {
        if (stripe != null) {
          stripe.shutdown();
        }
      }
      throw e;
    }
    return new CommitLog(config, stripes, new CommitLogCheckpoint(firstNewIds));
  }

  /** The segments replay kept, and the highest id seen, deleted stubs included. */
  private record StripeReplay(List<CommitLogSegment> live, long highestId) {}

  private static StripeReplay replayStripe(
      FileSystem fs, CommitLogReader reader, int index, Path directory, Consumer<Cell> replayed)
      throws IOException {
    fs.createDirectories(directory);
    List<CommitLogSegment> live = new ArrayList<>();
    long highestId = 0;
    boolean deletedAny = false;
    for (Path file : fs.list(directory)) { // name order is id order
      long id = CommitLogSegment.parseId(file);
      if (id < 0) {
        continue; // not a segment: leave other files alone
      }
      highestId = Math.max(highestId, id); // never reuse an id, not even a deleted stub's
      CommitLogReader.Result result = reader.replay(file, id, replayed);
      if (result == null) {
        LOG.log(
            Level.WARNING,
            "Deleting commit-log segment {0}: shorter than a segment header, left by a crash"
                + " while it was being created",
            file);
        fs.delete(file);
        deletedAny = true;
        continue;
      }
      if (result.header().stripeIndex() != index) {
        LOG.log(
            Level.WARNING,
            "Commit-log segment {0} was written by stripe {1} but sits in the directory of"
                + " stripe {2} (directories reordered?); replaying it anyway",
            file,
            result.header().stripeIndex(),
            index);
      }
      live.add(new CommitLogSegment(id, file, result.sizeBytes()));
    }
    if (deletedAny) {
      fs.syncDirectory(directory);
    }
    return new StripeReplay(live, highestId);
  }

  /**
   * Enqueues one record; the future completes when its stripe synced it, or exceptionally with an
   * IOException (disk full, sync failure, log closed) — then the record may or may not be durable.
   * Never blocks on I/O. Thread-safe.
   *
   * <p>The future completes on the stripe's writer thread: dependent actions should be cheap or use
   * the {@code *Async} variants, or they delay the stripe's next group commit.
   *
   * @throws IllegalArgumentException if the encoded cell exceeds {@link
   *     RecordFormat#MAX_PAYLOAD_BYTES} (16 MiB)
   */
  public CompletableFuture<Void> append(Cell cell) {
    return enqueue(cell);
  }

  /**
   * Told once whether a record was synced: {@code failure} is null if it was, else what {@link
   * #append}'s future would have failed with.
   */
  @FunctionalInterface
  public interface Synced {
    void synced(Throwable failure);
  }

  /** A record on its way to the disk, as {@link #appendPending} returns it. */
  public interface PendingRecord {
    /**
     * Calls {@code synced} once the record's stripe synced it (or failed): on the stripe's writer
     * thread, or on the calling thread if that happened already. Call at most once. What the
     * listener throws is logged and otherwise ignored.
     */
    void whenSynced(Synced synced);
  }

  /**
   * As {@link #append}, for a caller that needs no future: the listener given to the returned
   * record's {@link PendingRecord#whenSynced} costs no allocation (the record is the one object the
   * append needs anyway), where each dependent stage of a future costs two.
   */
  public PendingRecord appendPending(Cell cell) {
    return enqueue(cell);
  }

  private StripeRequest.Append enqueue(Cell cell) {
    int payloadBytes = CellCodec.encodedSize(cell);
    if (payloadBytes > RecordFormat.MAX_PAYLOAD_BYTES) {
      throw new IllegalArgumentException(
          "cell of "
              + payloadBytes
              + " encoded bytes exceeds the commit-log record limit of "
              + RecordFormat.MAX_PAYLOAD_BYTES
              + " ("
              + cell.key()
              + ")");
    }
    StripeRequest.Append request = new StripeRequest.Append(cell, payloadBytes);
    stripes[stripeOf(cell.key())].append(request);
    return request;
  }

  /**
   * A future that completes once every record of {@code key}'s stripe appended before this call is
   * synced (or failed, then exceptionally). Costs no I/O of its own: a reader uses it to reply only
   * about durable state.
   */
  public CompletableFuture<Void> awaitSynced(Key key) {
    StripeRequest.Append barrier = StripeRequest.Append.barrier();
    stripes[stripeOf(key)].append(barrier);
    return barrier;
  }

  /** The stripe that holds {@code key}'s records. */
  public int stripeOf(Key key) {
    return Math.floorMod(key.token(), stripes.length);
  }

  public int stripeCount() {
    return stripes.length;
  }

  /**
   * The checkpoint below which lie exactly the segments found by {@link #open}: discard it once the
   * replayed cells are safely in SSTables.
   */
  public CommitLogCheckpoint replayCheckpoint() {
    return replayCheckpoint;
  }

  /**
   * Closes every stripe's current segment and starts a new one; returns a checkpoint naming, per
   * stripe, the first segment id at or after which records may be newer than this call. Records
   * appended before rotate() returned are all in segments below the checkpoint. Waits until every
   * stripe synced what was queued before it. A stripe whose segment holds no record yet keeps it.
   */
  public CommitLogCheckpoint rotate() throws IOException {
    ensureOpen();
    List<StripeRequest.Rotate> requests = new ArrayList<>(stripes.length);
    for (CommitLogStripe stripe : stripes) {
      requests.add(stripe.rotate());
    }
    long[] ids = new long[stripes.length];
    for (int i = 0; i < ids.length; i++) {
      ids[i] = await(requests.get(i));
    }
    return new CommitLogCheckpoint(ids);
  }

  private static long await(StripeRequest.Rotate request) throws IOException {
    boolean interrupted = false;
    try {
      while (true) {
        try {
          return request.get();
        } catch (InterruptedException e) {
          // The rotation is queued and will happen; returning early would lose its checkpoint.
          interrupted = true;
        } catch (ExecutionException e) {
          if (e.getCause() instanceof IOException io) {
            throw new IOException(io.getMessage(), io);
          }
          throw new IllegalStateException("commit-log rotation failed", e.getCause());
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Deletes every segment (all stripes) wholly below the checkpoint (per-stripe id < checkpoint
   * id), then syncs the directories. Never deletes the current segment.
   *
   * @throws IllegalArgumentException if the checkpoint has another stripe count or names a segment
   *     this log has not reached (it came from another log)
   */
  public void discardBefore(CommitLogCheckpoint checkpoint) throws IOException {
    ensureOpen();
    if (checkpoint.stripeCount() != stripes.length) {
      throw new IllegalArgumentException(
          "checkpoint "
              + checkpoint
              + " is for "
              + checkpoint.stripeCount()
              + " stripes, not "
              + stripes.length);
    }
    for (CommitLogStripe stripe : stripes) {
      if (checkpoint.segmentId(stripe.index()) > stripe.nextSegmentId()) {
        throw new IllegalArgumentException(
            "checkpoint "
                + checkpoint
                + " is ahead of stripe "
                + stripe.index()
                + " (next segment "
                + stripe.nextSegmentId()
                + "): not from this commit log");
      }
    }
    for (CommitLogStripe stripe : stripes) {
      stripe.discardBefore(checkpoint.segmentId(stripe.index()));
    }
  }

  /** Bytes of all live segments on disk, all stripes. */
  /** Stripe {@code i} (tests). */
  CommitLogStripe stripe(int i) {
    return stripes[i];
  }

  public long totalSizeBytes() {
    long total = 0;
    for (CommitLogStripe stripe : stripes) {
      total += stripe.totalSizeBytes();
    }
    return total;
  }

  /** True when {@link #totalSizeBytes()} exceeds {@link CommitLogConfig#maxTotalSizeBytes()}. */
  public boolean overSizeLimit() {
    return totalSizeBytes() > config.maxTotalSizeBytes();
  }

  public CommitLogConfig config() {
    return config;
  }

  /**
   * Drains: every future queued before this call completes (synced) or fails; later appends fail.
   * Stops the writer threads and closes the segments. Idempotent.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (CommitLogStripe stripe : stripes) {
      stripe.shutdown();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) {
      throw new IOException("commit log is closed");
    }
  }
}
