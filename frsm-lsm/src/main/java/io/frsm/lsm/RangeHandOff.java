package io.frsm.lsm;

import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.manifest.TokenInterval;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What one replica hands to another (docs/DESIGN.md "Ring"): its segregated tables, shipped as they
 * are, or a token range exported as SSTable files and imported on the other side. The file work is
 * {@link TableTransfer}'s; this class picks the tables, names the exports, turns a ring range into
 * token spans, and asks for a minor compaction once the table set changed.
 */
final class RangeHandOff {
  private final EngineState state;
  private final ReadPath reads;
  private final TableTransfer transfer;
  private final Runnable tablesChanged;
  private final LongSupplier wallClockMillis;
  private final AtomicLong exportCounter = new AtomicLong();

  /**
   * @param tablesChanged runs after an import or a release of the segregated flags (the engine
   *     schedules a minor compaction)
   */
  RangeHandOff(
      EngineState state,
      ReadPath reads,
      TableTransfer transfer,
      Runnable tablesChanged,
      LongSupplier wallClockMillis) {
    this.state = state;
    this.reads = reads;
    this.transfer = transfer;
    this.tablesChanged = tablesChanged;
    this.wallClockMillis = wallClockMillis;
  }

  /** See {@link LsmEngine#segregatedTables()}. */
  List<Path> segregatedTables() throws QuarantinedRangeException {
    List<Path> out = new ArrayList<>();
    for (TableEntry t : state.liveEntries()) {
      if (!t.segregated()) {
        continue;
      }
      if (t.quarantined() || t.hasQuarantinedBlocks()) {
        TokenInterval damaged = t.quarantined() ? t.tokenSpan() : t.quarantinedIntervals().get(0);
        throw new QuarantinedRangeException(t, damaged, "segregated table " + t.fileName());
      }
      out.add(state.pathOf(t.generation()));
    }
    out.sort(null);
    return out;
  }

  /** See {@link LsmEngine#releaseSegregated()}. */
  void releaseSegregated() throws IOException {
    List<TableEntry> updated = new ArrayList<>();
    for (TableEntry t : state.liveEntries()) {
      if (t.segregated()) {
        updated.add(t.withSegregated(false));
      }
    }
    if (!updated.isEmpty()) {
      state.updateEntries(updated);
      tablesChanged.run();
    }
  }

  /** See {@link LsmEngine#exportRange(long, long, Path)}. */
  List<Path> exportRange(long fromToken, long toToken, Path targetDirectory) throws IOException {
    long expected = 0;
    for (TableEntry t : state.liveEntries()) {
      if (t.overlapsTokens(fromToken, toToken)) {
        expected += t.cellCount();
      }
    }
    expected += state.peek().active.cellCount();
    String name =
        String.format(
            "export-%d-%06d.db", wallClockMillis.getAsLong(), exportCounter.incrementAndGet());
    return transfer.export(
        reads.scan(fromToken, toToken), Math.max(1, expected), targetDirectory, name);
  }

  /** See {@link LsmEngine#importTables(List, long, long)}. */
  void importTables(List<Path> files, long fromToken, long toToken) throws IOException {
    transfer.importFiles(files, fromToken, toToken);
    tablesChanged.run();
  }

  /** See {@link LsmEngine#importRingRange(List, long, long)}. */
  void importRingRange(List<Path> files, long fromTokenExclusive, long toTokenInclusive)
      throws IOException {
    List<long[]> spans = new ArrayList<>();
    if (fromTokenExclusive < toTokenInclusive) {
      spans.add(new long[] {fromTokenExclusive + 1, toTokenInclusive});
    } else if (fromTokenExclusive == toTokenInclusive) {
      spans.add(new long[] {Long.MIN_VALUE, Long.MAX_VALUE});
    } else {
      spans.add(new long[] {Long.MIN_VALUE, toTokenInclusive});
      if (fromTokenExclusive != Long.MAX_VALUE) {
        spans.add(new long[] {fromTokenExclusive + 1, Long.MAX_VALUE});
      }
    }
    transfer.importFiles(files, spans);
    tablesChanged.run();
  }
}
