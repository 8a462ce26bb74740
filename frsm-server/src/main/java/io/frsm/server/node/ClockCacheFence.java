package io.frsm.server.node;

import io.frsm.server.stream.RangeStreams;
import io.frsm.store.CachingCellStore;
import java.io.IOException;

/**
 * Fences the clock cache around an import of copied tables (a learner catching up by bulk copy,
 * docs/PROTOCOL.md "Membership changes", "Copy"): the imported cells reach the store without a
 * persist, so a cell cached before — a key's clock, or "nothing stored" — would be stale after. The
 * cache is bypassed while the import runs and starts empty after it ({@link
 * CachingCellStore#beginBypass}), so the core reads the imported cells from the store.
 *
 * <p>All of the cache rather than the range's keys: imports are rare (one per range a node joins)
 * and the cache refills from the store; a per-range sweep would have to walk every entry anyway.
 * REQUIRES: imports run one at a time (the streams' single receive thread): the bypass is a flag,
 * not a count.
 */
final class ClockCacheFence implements RangeStreams.ImportFence {
  private final CachingCellStore cells;

  ClockCacheFence(CachingCellStore cells) {
    this.cells = cells;
  }

  @Override
  public void around(Importing importing) throws IOException {
    cells.beginBypass();
    try {
      importing.run();
    } finally {
      cells.endBypass();
    }
  }
}
