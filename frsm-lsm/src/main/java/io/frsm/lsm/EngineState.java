package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.Manifest;
import io.frsm.lsm.manifest.ManifestStore;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.manifest.TokenInterval;
import io.frsm.lsm.memtable.Memtable;
import io.frsm.lsm.sstable.BlockCache;
import io.frsm.lsm.sstable.SSTableMetadata;
import io.frsm.lsm.sstable.SSTableMetrics;
import io.frsm.lsm.sstable.SSTableReader;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine's table set and read view, and the only code that changes them. Every change writes
 * the manifest first (durable, atomic) and then swaps the view, under one lock, so the view always
 * matches the manifest on disk. Reads take no lock: they retain the current view.
 */
final class EngineState {
  private static final System.Logger LOG = System.getLogger(EngineState.class.getName());
  static final String CORRUPT_DIRECTORY = "corrupt";

  private final FileSystem fs;
  private final Path dataDirectory;
  private final ManifestStore manifestStore;
  private final BlockCache blockCache;
  private final SSTableMetrics sstableMetrics;
  private final LsmMetrics metrics;
  private final Object lock = new Object();
  private final AtomicLong nextGeneration;
  private Manifest manifest;
  private volatile EngineView view;

  /** Set once by {@link #close()}: the current view is then released and never replaced. */
  private volatile boolean closed;

  EngineState(
      FileSystem fs,
      Path dataDirectory,
      ManifestStore manifestStore,
      Manifest manifest,
      BlockCache blockCache,
      SSTableMetrics sstableMetrics,
      LsmMetrics metrics,
      long nextGeneration) {
    this.fs = fs;
    this.dataDirectory = dataDirectory;
    this.manifestStore = manifestStore;
    this.manifest = manifest;
    this.blockCache = blockCache;
    this.sstableMetrics = sstableMetrics;
    this.metrics = metrics;
    this.nextGeneration = new AtomicLong(Math.max(nextGeneration, manifest.nextGeneration()));
  }

  /** Opens the manifest's tables; a table that fails verification is quarantined, not fatal. */
  void openTables(Memtable active) throws IOException {
    List<TableHandle> handles = new ArrayList<>();
    List<TableEntry> quarantinedNow = new ArrayList<>();
    for (TableEntry e : manifest.tables()) {
      if (e.quarantined()) {
        continue;
      }
      try {
        handles.add(openHandle(e)); // quarantined intervals stay fenced through the live entry
      } catch (CorruptionException c) {
        metrics.corruptionsDetected.increment();
        LOG.log(System.Logger.Level.ERROR, "table " + e.fileName() + " is corrupt: quarantined", c);
        moveAside(e);
        quarantinedNow.add(e.withQuarantined(true));
      }
    }
    if (!quarantinedNow.isEmpty()) {
      synchronized (lock) {
        writeManifest(manifest.replace(quarantinedNow));
      }
    }
    handles.sort(NEWEST_FIRST);
    List<QuarantinedTable> quarantined = new ArrayList<>();
    for (TableEntry e : manifest.tables()) {
      if (e.quarantined()) {
        quarantined.add(new QuarantinedTable(e, tryOpenFilter(e)));
      }
    }
    view = new EngineView(active, List.of(), handles, quarantined);
    for (TableHandle h : handles) {
      h.release(); // the view holds them now; the engine's creation reference is not needed
    }
  }

  private static final Comparator<TableHandle> NEWEST_FIRST =
      Comparator.comparingLong((TableHandle h) -> h.entry().generation()).reversed();

  /** The bloom filter of a quarantined table, if its footer, index and filter still verify. */
  private SSTableReader tryOpenFilter(TableEntry e) {
    Path path = dataDirectory.resolve(CORRUPT_DIRECTORY).resolve(e.fileName());
    if (!fs.exists(path)) {
      return null;
    }
    try {
      return SSTableReader.open(fs, path, BlockCache.disabled(), sstableMetrics);
    } catch (IOException ex) {
      return null;
    }
  }

  Path pathOf(long generation) {
    return dataDirectory.resolve(TableEntry.fileName(generation));
  }

  long newGeneration() {
    return nextGeneration.getAndIncrement();
  }

  TableHandle openHandle(TableEntry e) throws IOException {
    Path path = pathOf(e.generation());
    SSTableReader reader = SSTableReader.open(fs, path, blockCache, sstableMetrics);
    return new TableHandle(e, reader, path, fs);
  }

  static TableEntry entryFor(long generation, boolean segregated, SSTableMetadata meta) {
    return new TableEntry(
        generation,
        segregated,
        false,
        meta.firstKey().token(),
        meta.lastKey().token(),
        meta.fileSizeBytes(),
        meta.cellCount());
  }

  /**
   * The current view, retained: the caller must {@link EngineView#release()} it.
   *
   * @throws IllegalStateException once the engine closed (its last view is released for good: a
   *     reader would otherwise retry forever)
   */
  EngineView acquire() {
    while (true) {
      EngineView v = view;
      if (v.tryRetain()) {
        return v;
      }
      if (closed) {
        throw new IllegalStateException("the LSM engine is closed");
      }
      if (view == v) {
        // swap() publishes the next view before it releases the old one, so a current view
        // without references was released once too often: fail loudly rather than spin forever.
        throw new IllegalStateException("the LSM engine's current view was released too often");
      }
      // A view swapped out under us: load the new one.
    }
  }

  /** The current view without a reference: only for reading memtables and immutable fields. */
  EngineView peek() {
    return view;
  }

  List<TableEntry> liveEntries() {
    synchronized (lock) {
      return manifest.tables();
    }
  }

  /** Makes {@code next} the active memtable; the old one joins the frozen list. */
  Memtable switchMemtable(Memtable next) {
    synchronized (lock) {
      EngineView v = view;
      List<Memtable> frozen = new ArrayList<>();
      frozen.add(v.active);
      frozen.addAll(v.frozen);
      swap(new EngineView(next, frozen, v.tables, v.quarantined));
      return v.active;
    }
  }

  /**
   * Replaces {@code removed} tables (and the flushed memtable, if any) by {@code added} in one
   * manifest write and one view swap.
   */
  void publish(Memtable flushed, Collection<Long> removed, List<TableHandle> added)
      throws IOException {
    synchronized (lock) {
      List<TableEntry> addedEntries = added.stream().map(TableHandle::entry).toList();
      writeManifest(manifest.apply(removed, addedEntries));
      EngineView v = view;
      Set<Long> gone = new HashSet<>(removed);
      List<TableHandle> tables = new ArrayList<>(added);
      List<TableHandle> obsolete = new ArrayList<>();
      for (TableHandle t : v.tables) {
        if (gone.contains(t.entry().generation())) {
          obsolete.add(t);
        } else {
          tables.add(t);
        }
      }
      tables.sort(NEWEST_FIRST);
      List<Memtable> frozen = new ArrayList<>(v.frozen);
      if (flushed != null) {
        boolean wasFrozen = frozen.remove(flushed);
        assert wasFrozen : "published a memtable that was not frozen";
      }
      // Mark before the swap: releasing the old view may close an obsolete table at once.
      for (TableHandle t : obsolete) {
        t.markObsolete();
      }
      swap(new EngineView(v.active, frozen, tables, v.quarantined));
      for (TableHandle t : added) {
        t.release(); // the new view holds it
      }
    }
  }

  /** Sets or clears the segregated flag of live tables, in the manifest and the view. */
  void updateEntries(List<TableEntry> updated) throws IOException {
    synchronized (lock) {
      writeManifest(manifest.replace(updated));
      for (TableHandle t : view.tables) {
        for (TableEntry u : updated) {
          if (u.generation() == t.entry().generation()) {
            t.updateEntry(u);
          }
        }
      }
    }
  }

  /**
   * Fences off what a checksum failure in {@code handle} showed to be damaged, at the finest grain
   * the failure allows: a damaged data block quarantines that block's token span and the table
   * stays in service for every other key ({@link #quarantineBlock}); damage anywhere else (footer,
   * index, filter, properties, or an offset that is no block's start) quarantines the whole table
   * ({@link #quarantineTable}).
   */
  void quarantine(TableHandle handle, CorruptionException cause) {
    int block =
        cause.file() != null && cause.file().equals(handle.path())
            ? handle.reader().dataBlockAt(cause.offset())
            : -1;
    if (block >= 0) {
      quarantineBlock(handle, block, cause);
    } else {
      quarantineTable(handle, cause);
    }
  }

  /**
   * Records data block {@code block} of {@code handle} as quarantined: its token span joins the
   * table's quarantined intervals in the manifest (durable first, so the fence survives a restart)
   * and in the live entry, after which reads of keys the table may hold in that span fail with
   * {@link QuarantinedRangeException}. A table that would exceed {@link
   * TableEntry#MAX_QUARANTINED_INTERVALS} is quarantined whole instead.
   */
  void quarantineBlock(TableHandle handle, int block, CorruptionException cause) {
    synchronized (lock) {
      if (!view.tables.contains(handle)) {
        return; // already quarantined whole or compacted away
      }
      TokenInterval span = handle.reader().blockTokens(block);
      TableEntry current = handle.entry();
      for (TokenInterval q : current.quarantinedIntervals()) {
        if (q.contains(span)) {
          return; // found before (a read and the scrub can race to the same block)
        }
      }
      TableEntry next = current.withQuarantinedInterval(span);
      if (next == null) {
        quarantineTable(handle, cause);
        return;
      }
      metrics.corruptionsDetected.increment();
      metrics.corruptBlocks.increment();
      LOG.log(
          System.Logger.Level.ERROR,
          "data block "
              + block
              + " of table "
              + handle.path()
              + " is corrupt: quarantining tokens "
              + span
              + " of it; this replica needs repair of that interval, reads of its keys will fail"
              + " until then",
          cause);
      try {
        writeManifest(manifest.replace(List.of(next)));
      } catch (IOException e) {
        // The in-memory fence below still holds until a restart; after one, the first read of
        // the block fails its checksum again and fences it again.
        LOG.log(
            System.Logger.Level.ERROR, "could not record the quarantine of " + handle.path(), e);
      }
      handle.updateEntry(next);
    }
  }

  /**
   * Takes a table whose footer, index, filter or properties failed a checksum out of service: moves
   * its file to {@code corrupt/}, keeps it in the manifest as quarantined (its token range then
   * fails reads, across restarts), and removes it from the view.
   */
  void quarantineTable(TableHandle handle, CorruptionException cause) {
    synchronized (lock) {
      EngineView v = view;
      if (!v.tables.contains(handle)) {
        return; // already quarantined or compacted away
      }
      metrics.corruptionsDetected.increment();
      LOG.log(
          System.Logger.Level.ERROR,
          "table "
              + handle.path()
              + " is corrupt: quarantining it; this replica needs repair of tokens ["
              + handle.entry().minToken()
              + ", "
              + handle.entry().maxToken()
              + "], reads of its keys will fail until then",
          cause);
      TableEntry q = handle.entry().withQuarantined(true);
      try {
        writeManifest(manifest.replace(List.of(q)));
        moveAside(handle.entry());
      } catch (IOException e) {
        LOG.log(
            System.Logger.Level.ERROR, "could not record the quarantine of " + handle.path(), e);
      }
      List<TableHandle> tables = new ArrayList<>(v.tables);
      tables.remove(handle);
      List<QuarantinedTable> quarantined = new ArrayList<>(v.quarantined);
      quarantined.add(new QuarantinedTable(q, tryOpenFilter(q)));
      swap(new EngineView(v.active, v.frozen, tables, quarantined));
    }
  }

  /** Forgets a quarantined table after the operator repaired the replica's range. */
  void releaseQuarantine(long generation) throws IOException {
    synchronized (lock) {
      EngineView v = view;
      QuarantinedTable found = null;
      List<QuarantinedTable> quarantined = new ArrayList<>();
      for (QuarantinedTable q : v.quarantined) {
        if (q.entry.generation() == generation) {
          found = q;
        } else {
          quarantined.add(q);
        }
      }
      if (found == null) {
        throw new IllegalArgumentException("table " + generation + " is not quarantined");
      }
      writeManifest(manifest.apply(List.of(generation), List.of()));
      swap(new EngineView(v.active, v.frozen, v.tables, quarantined));
      found.close();
    }
  }

  private void moveAside(TableEntry e) throws IOException {
    Path corruptDir = dataDirectory.resolve(CORRUPT_DIRECTORY);
    fs.createDirectories(corruptDir);
    Path from = pathOf(e.generation());
    if (fs.exists(from)) {
      fs.rename(from, corruptDir.resolve(e.fileName()));
      fs.syncDirectory(dataDirectory);
      fs.syncDirectory(corruptDir);
    }
  }

  private void writeManifest(Manifest next) throws IOException {
    assert Thread.holdsLock(lock);
    Manifest withGen = next;
    long reserved = nextGeneration.get();
    if (withGen.nextGeneration() < reserved) {
      withGen = new Manifest(next.sequence(), reserved, next.tables());
    }
    manifestStore.write(withGen);
    manifest = withGen;
  }

  private void swap(EngineView next) {
    assert Thread.holdsLock(lock);
    EngineView old = view;
    view = next;
    old.release();
  }

  /** Releases the current view (engine shutdown). */
  void close() {
    synchronized (lock) {
      closed = true; // before the release: a reader that then fails to retain sees it
      for (QuarantinedTable q : view.quarantined) {
        q.close();
      }
      view.release();
    }
  }
}
