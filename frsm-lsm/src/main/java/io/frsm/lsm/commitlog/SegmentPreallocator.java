package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prepares a stripe's next segment file in the background: a spare file in the stripe's directory,
 * written with zeros up to the segment size and synced, which the writer renames to the next
 * segment's name when it opens one ({@link CommitLogConfig#preallocateSegments}). Appends then
 * overwrite blocks that are already allocated, and each group commit's sync persists data only —
 * not a new file size and newly allocated blocks, which on ext4 is a journal commit per sync.
 * Measured on this project's VM (docs/BENCHMARKS.md): 0.62× the wall time and 0.68× the CPU of a
 * sync into a growing file.
 *
 * <p>A spare never holds a record and its name ({@link #isSpare}) is not a segment's, so replay
 * never reads it; spares left by a crash are deleted when the stripe starts. Each spare has a name
 * of its own, so a zeroing that outlives {@link #close}'s bounded wait never touches the spare of
 * the stripe that reopened the directory. Preparing is best effort: if it fails (a full disk), the
 * writer creates its next segment as before and asks again at the one after. On a file system that
 * cannot preallocate ({@link WritableFile#preallocate} false) there are no spares at all.
 *
 * <p>Thread-safety: {@link #prepare}, {@link #takeReady} and {@link #close} on the stripe's writer
 * thread (or before it starts, or after it ended); {@link #spareReady} from any thread; the zeroing
 * runs on a thread of its own.
 */
final class SegmentPreallocator implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(SegmentPreallocator.class.getName());

  /** DO NOT CHANGE lightly: spares left by an older version would no longer be deleted. */
  static final String SPARE_PREFIX = "commitlog-spare-";

  static final String SPARE_SUFFIX = ".tmp";

  /** Spare names unique within the JVM; a new JVM deletes every spare before it makes one. */
  private static final AtomicLong SPARES = new AtomicLong();

  /** A prepared spare: where it is, and its file, open for writing at position 0. */
  record Spare(Path path, WritableFile file) {}

  private final FileSystem fs;
  private final Path directory;
  private final long sizeBytes;
  private final ExecutorService zeroing;
  private volatile CompletableFuture<Spare> job; // written by the writer thread only
  private volatile boolean unsupported; // the file system cannot preallocate: no spares
  private volatile boolean closed;

  /** How long {@link #close} waits for an interrupted zeroing to end. */
  private static final long CLOSE_WAIT_SECONDS = 10;

  SegmentPreallocator(FileSystem fs, Path directory, long sizeBytes, int stripeIndex) {
    this.fs = fs;
    this.directory = directory;
    this.sizeBytes = sizeBytes;
    this.zeroing =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-commitlog-preallocate-" + stripeIndex);
              t.setDaemon(true);
              return t;
            });
  }

  /** True for the name of a spare (never a segment's). */
  static boolean isSpare(Path file) {
    String name = file.getFileName().toString();
    return name.startsWith(SPARE_PREFIX) && name.endsWith(SPARE_SUFFIX);
  }

  /** Deletes the spares in {@code directory}: left by a crash, they hold nothing. */
  static void deleteSpares(FileSystem fs, Path directory) throws IOException {
    for (Path file : fs.list(directory)) {
      if (isSpare(file)) {
        fs.delete(file);
      }
    }
  }

  /** True once a spare is prepared and not yet taken. Any thread (tests wait for it). */
  boolean spareReady() {
    CompletableFuture<Spare> j = job;
    return j != null && j.isDone() && !j.isCompletedExceptionally();
  }

  /** Starts preparing a spare unless one is ready or under way. */
  void prepare() {
    if (job != null || unsupported || closed) {
      return;
    }
    Path path = directory.resolve(SPARE_PREFIX + SPARES.incrementAndGet() + SPARE_SUFFIX);
    job = CompletableFuture.supplyAsync(() -> createSpare(path), zeroing);
  }

  /**
   * The prepared spare, or null if none is ready (still being prepared, or preparing failed). The
   * caller owns it from here.
   */
  Spare takeReady() {
    CompletableFuture<Spare> j = job;
    if (j == null || !j.isDone()) {
      return null;
    }
    job = null;
    if (j.isCompletedExceptionally()) {
      return null; // logged and cleaned up by createSpare; the next prepare() tries again
    }
    return j.join();
  }

  private Spare createSpare(Path path) {
    WritableFile file = null;
    boolean preallocated;
    try {
      file = fs.create(path);
      preallocated = file.preallocate(sizeBytes);
      assert file.position() == 0 : "preallocating moved the append position";
    } catch (IOException | RuntimeException e) {
      LOG.log(
          closed ? Level.DEBUG : Level.WARNING,
          "could not preallocate the next commit-log segment at {0}: {1}; the next segment"
              + " grows as it is written",
          path,
          e.toString());
      discard(new Spare(path, file));
      throw new IllegalStateException(e);
    }
    if (!preallocated) {
      // A spare that is not preallocated would only cost a rename per segment.
      unsupported = true;
      LOG.log(Level.DEBUG, "the file system of {0} cannot preallocate: no spares", path);
      discard(new Spare(path, file));
      throw new IllegalStateException("the file system cannot preallocate");
    }
    return new Spare(path, file);
  }

  /** Closes and deletes a spare that will not be used; best effort (the next start deletes it). */
  void discard(Spare spare) {
    try {
      if (spare.file() != null) {
        spare.file().close();
      }
      fs.delete(spare.path());
    } catch (IOException e) {
      LOG.log(Level.DEBUG, "could not delete the commit-log spare " + spare.path(), e);
    }
  }

  /**
   * Stops preparing: a zeroing in progress is interrupted (the file channel's write or sync ends
   * with an exception) and discards its file; a spare nobody took is discarded. Waits, at most
   * {@link #CLOSE_WAIT_SECONDS}, for the zeroing thread to end, so that no file of this stripe is
   * created or deleted after the log is closed (a caller may delete the directory next).
   */
  @Override
  public void close() {
    closed = true;
    zeroing.shutdownNow();
    CompletableFuture<Spare> j = job;
    job = null;
    if (j != null) {
      j.thenAccept(this::discard); // a failed job cleaned up after itself
    }
    try {
      if (!zeroing.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
        LOG.log(
            Level.WARNING,
            "a commit-log spare in {0} was still being written {1} s after close; the next start"
                + " deletes it",
            directory,
            CLOSE_WAIT_SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // the next start deletes a spare left behind
    }
  }
}
