package io.frsm.lsm;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.sstable.BlockCache;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.SSTableMetadata;
import io.frsm.lsm.sstable.SSTableMetrics;
import io.frsm.lsm.sstable.SSTableOptions;
import io.frsm.lsm.sstable.SSTableReader;
import io.frsm.lsm.sstable.SSTableWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Streams a token range between nodes as SSTable files: export writes the merged state of a range;
 * import verifies foreign files block by block, keeps only what another replica may hand over, and
 * publishes all of them in one manifest write (all or nothing).
 *
 * <p>What import keeps (docs/DESIGN.md "Acceptor rules": cells arriving other than through the
 * protocol are merged only if chosen): a cell's accepted part only if it is marked chosen, and its
 * purge mark; never the sender's promise, which is the sender's own acceptor state. A cell left
 * with nothing is skipped.
 */
final class TableTransfer {
  private final FileSystem fs;
  private final EngineState state;
  private final SSTableOptions tableOptions;
  private final ImportRanges importing;

  TableTransfer(
      FileSystem fs, EngineState state, SSTableOptions tableOptions, ImportRanges importing) {
    this.fs = fs;
    this.state = state;
    this.tableOptions = tableOptions;
    this.importing = importing;
  }

  /** Writes the range's cells to {@code targetDirectory}; returns the files (none if empty). */
  List<Path> export(CellIterator range, long expectedKeys, Path targetDirectory, String name)
      throws IOException {
    fs.createDirectories(targetDirectory);
    Path target = targetDirectory.resolve(name);
    try (range;
        SSTableWriter writer = SSTableWriter.create(fs, target, expectedKeys, tableOptions)) {
      long cells = 0;
      while (range.hasNext()) {
        writer.add(range.next());
        cells++;
      }
      if (cells == 0) {
        return List.of();
      }
      writer.finish();
    }
    return List.of(target);
  }

  /** Imports {@code files} holding only tokens in [from, to]; atomic: all or none are published. */
  void importFiles(List<Path> files, long fromToken, long toToken) throws IOException {
    importFiles(files, List.of(new long[] {fromToken, toToken}));
  }

  /**
   * Imports {@code files} holding only tokens in the union of {@code spans} (each {first, last},
   * inclusive); atomic: all or none are published.
   */
  void importFiles(List<Path> files, List<long[]> spans) throws IOException {
    List<Object> guards = new ArrayList<>();
    for (long[] span : spans) {
      guards.add(importing.begin(span[0], span[1]));
    }
    List<TableHandle> added = new ArrayList<>();
    try {
      for (Path file : files) {
        TableHandle h = copyFiltered(file, spans);
        if (h != null) {
          added.add(h);
        }
      }
      state.publish(null, List.of(), added);
    } catch (IOException | RuntimeException e) {
      for (TableHandle h : added) {
        h.release();
        fs.delete(h.path());
      }
      throw e;
    } finally {
      guards.forEach(importing::end);
    }
  }

  private static boolean inSpans(long token, List<long[]> spans) {
    for (long[] span : spans) {
      if (token >= span[0] && token <= span[1]) {
        return true;
      }
    }
    return false;
  }

  private static String describe(List<long[]> spans) {
    StringBuilder out = new StringBuilder();
    for (long[] span : spans) {
      out.append(out.length() == 0 ? "" : " or ").append('[').append(span[0]).append(", ");
      out.append(span[1]).append(']');
    }
    return out.toString();
  }

  private TableHandle copyFiltered(Path file, List<long[]> spans) throws IOException {
    long generation = state.newGeneration();
    Path target = state.pathOf(generation);
    SSTableMetadata meta = null;
    try (SSTableReader source =
            SSTableReader.open(fs, file, BlockCache.disabled(), SSTableMetrics.noop());
        CellIterator cells = source.iterator(null, null);
        SSTableWriter writer =
            SSTableWriter.create(fs, target, source.metadata().cellCount(), tableOptions)) {
      long kept = 0;
      while (cells.hasNext()) {
        Cell cell = cells.next();
        if (!inSpans(cell.key().token(), spans)) {
          throw new IllegalArgumentException(
              "imported file "
                  + file
                  + " holds key "
                  + cell.key()
                  + " outside the token range "
                  + describe(spans)
                  + "; nothing was imported");
        }
        Cell transferable = transferable(cell);
        if (transferable != null) {
          writer.add(transferable);
          kept++;
        }
      }
      if (kept > 0) {
        meta = writer.finish();
      }
    }
    return meta == null ? null : state.openHandle(EngineState.entryFor(generation, false, meta));
  }

  static Cell transferable(Cell cell) {
    boolean chosen = cell.accepted() != null && cell.accepted().chosen();
    if (!chosen && cell.purge() == null) {
      return null;
    }
    return new Cell(
        cell.key(), Ballot.NONE, chosen ? cell.accepted() : null, cell.purge(), cell.writeTimeMs());
  }
}
