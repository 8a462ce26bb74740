package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.SSTableMetadata;
import io.frsm.lsm.sstable.SSTableOptions;
import io.frsm.lsm.sstable.SSTableWriter;
import java.io.IOException;
import java.util.List;

/**
 * Ends the block-grain quarantine of a table: rewrites it without its damaged blocks (every block
 * that verifies is copied, cell for cell) and publishes the copy in place of the original in one
 * manifest step, so the quarantined intervals end together with the damaged bytes.
 *
 * <p>REQUIRES (the caller's, see docs/PROTOCOL.md "Corrupt storage"): the quarantined intervals
 * were repaired first. Dropping a damaged block drops whatever promises and accepted values it
 * held; that is only safe once this replica rejoined those keys as a learner at a new ring version
 * and settled them from a quorum of the other replicas.
 */
final class TableSalvage {
  private static final System.Logger LOG = System.getLogger(TableSalvage.class.getName());

  private final FileSystem fs;
  private final EngineState state;
  private final SSTableOptions tableOptions;

  TableSalvage(FileSystem fs, EngineState state, SSTableOptions tableOptions) {
    this.fs = fs;
    this.state = state;
    this.tableOptions = tableOptions;
  }

  /** Replaces the live table {@code generation} by its verified blocks. */
  void rewriteWithoutDamage(long generation) throws IOException {
    EngineView view = state.acquire();
    try {
      TableHandle handle = null;
      for (TableHandle t : view.tables) {
        if (t.entry().generation() == generation) {
          handle = t;
        }
      }
      if (handle == null || !handle.entry().hasQuarantinedBlocks()) {
        throw new IllegalArgumentException("table " + generation + " is not quarantined");
      }
      TableEntry original = handle.entry();
      long next = state.newGeneration();
      SSTableMetadata meta = null;
      long cells = 0;
      try (CellIterator in = handle.reader().salvage();
          SSTableWriter out =
              SSTableWriter.create(
                  fs, state.pathOf(next), Math.max(1, original.cellCount()), tableOptions)) {
        while (in.hasNext()) {
          out.add(in.next());
          cells++;
        }
        if (cells > 0) {
          meta = out.finish();
        }
      }
      List<TableHandle> added =
          meta == null
              ? List.of()
              : List.of(state.openHandle(EngineState.entryFor(next, original.segregated(), meta)));
      state.publish(null, List.of(generation), added);
      LOG.log(
          System.Logger.Level.INFO,
          "released the quarantine of "
              + original.fileName()
              + " "
              + original.quarantinedIntervals()
              + ": rewrote its "
              + cells
              + " readable cells of "
              + original.cellCount()
              + (meta == null ? "" : " as " + TableEntry.fileName(next)));
    } finally {
      view.release();
    }
  }
}
