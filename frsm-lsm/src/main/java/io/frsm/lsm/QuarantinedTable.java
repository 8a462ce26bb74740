package io.frsm.lsm;

import io.frsm.cell.Key;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.SSTableReader;

/**
 * A table found corrupt. Reads of keys it may hold fail with {@link QuarantinedRangeException}.
 * "May hold" uses the table's bloom filter when it could still be read (a damaged data block leaves
 * the filter intact), otherwise its whole token range from the manifest: coarser, but never answers
 * with older state.
 */
final class QuarantinedTable {
  final TableEntry entry;
  private final SSTableReader filterSource;

  QuarantinedTable(TableEntry entry, SSTableReader filterSource) {
    this.entry = entry;
    this.filterSource = filterSource;
  }

  boolean mayHold(Key key) {
    return entry.coversToken(key.token())
        && (filterSource == null || filterSource.mightContain(key));
  }

  boolean overlaps(long fromToken, long toToken) {
    return entry.overlapsTokens(fromToken, toToken);
  }

  void close() {
    if (filterSource != null) {
      filterSource.close();
    }
  }
}
