package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.SSTableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A live SSTable: its manifest entry and open reader, reference-counted by the {@link EngineView}s
 * that contain it. When a compaction or quarantine removes the table from the manifest it becomes
 * obsolete; the reader is closed (and an obsolete file deleted) only when the last view holding it
 * is released, so a read or scan in progress never sees a closed file.
 */
final class TableHandle {
  private static final System.Logger LOG = System.getLogger(TableHandle.class.getName());

  private volatile TableEntry entry;
  private final SSTableReader reader;
  private final Path path;
  private final FileSystem fs;
  private final AtomicInteger refs = new AtomicInteger(1);
  private volatile boolean deleteWhenUnused;

  TableHandle(TableEntry entry, SSTableReader reader, Path path, FileSystem fs) {
    this.entry = entry;
    this.reader = reader;
    this.path = path;
    this.fs = fs;
  }

  TableEntry entry() {
    return entry;
  }

  /**
   * Only the segregated flag and the quarantined intervals may change (the file does not).
   * REQUIRES: the engine state lock. A quarantined interval is never dropped here: only a release
   * that rewrites the table without its damaged blocks ends one.
   */
  void updateEntry(TableEntry updated) {
    if (updated.generation() != entry.generation() || !covers(updated, entry)) {
      throw new IllegalStateException("entry update " + updated + " would change " + entry);
    }
    entry = updated;
  }

  /** Whether every quarantined interval of {@code before} lies inside one of {@code after}'s. */
  private static boolean covers(TableEntry after, TableEntry before) {
    for (var b : before.quarantinedIntervals()) {
      if (after.quarantinedIntervals().stream().noneMatch(a -> a.contains(b))) {
        return false;
      }
    }
    return true;
  }

  SSTableReader reader() {
    return reader;
  }

  Path path() {
    return path;
  }

  void retain() {
    int before = refs.getAndIncrement();
    assert before > 0 : "retaining a released table " + path;
  }

  /** The file is obsolete: delete it once no view uses it. */
  void markObsolete() {
    deleteWhenUnused = true;
  }

  void release() {
    int left = refs.decrementAndGet();
    assert left >= 0 : "table released too often: " + path;
    if (left == 0) {
      reader.close();
      if (deleteWhenUnused) {
        try {
          fs.delete(path);
        } catch (IOException e) {
          // An undeleted obsolete file is harmless: it is not in the manifest, so the next open
          // deletes it as an orphan.
          LOG.log(System.Logger.Level.WARNING, "could not delete obsolete table " + path, e);
        }
      }
    }
  }
}
