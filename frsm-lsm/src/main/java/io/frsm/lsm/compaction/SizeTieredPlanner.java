package io.frsm.lsm.compaction;

import io.frsm.lsm.manifest.TableEntry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * Chooses minor compactions: size-tiered, over tables of similar size (paper §2.2; Cassandra's
 * STCS). Tables are sorted by size and grouped into buckets whose members are within [0.5, 1.5] of
 * the bucket's average; the most populous bucket with at least {@code minTables} members wins,
 * smallest tables first (they are cheapest to merge and most likely to hold overwritten cells).
 * Segregated tables and tables already being compacted are never chosen. Pure and deterministic.
 */
public final class SizeTieredPlanner {
  static final double BUCKET_LOW = 0.5;
  static final double BUCKET_HIGH = 1.5;

  /** Tables under this size all fall in one bucket: tiny flushes merge together quickly. */
  static final long SMALL_TABLE_BYTES = 4L * 1024 * 1024;

  private final int minTables;
  private final int maxTables;

  public SizeTieredPlanner(int minTables, int maxTables) {
    if (minTables < 2 || maxTables < minTables) {
      throw new IllegalArgumentException("need 2 <= minTables <= maxTables");
    }
    this.minTables = minTables;
    this.maxTables = maxTables;
  }

  /** The tables of the next minor compaction, or an empty list if none is due. */
  public List<TableEntry> plan(List<TableEntry> live, Set<Long> compacting) {
    List<TableEntry> candidates = new ArrayList<>();
    for (TableEntry t : live) {
      if (!t.segregated() && !compacting.contains(t.generation())) {
        candidates.add(t);
      }
    }
    candidates.sort(
        Comparator.comparingLong(TableEntry::fileSizeBytes)
            .thenComparingLong(TableEntry::generation));
    List<List<TableEntry>> buckets = new ArrayList<>();
    List<TableEntry> current = new ArrayList<>();
    double currentAverage = 0;
    for (TableEntry t : candidates) {
      long size = t.fileSizeBytes();
      boolean fits =
          !current.isEmpty()
              && ((size <= SMALL_TABLE_BYTES && currentAverage <= SMALL_TABLE_BYTES)
                  || (size >= currentAverage * BUCKET_LOW && size <= currentAverage * BUCKET_HIGH));
      if (!fits && !current.isEmpty()) {
        buckets.add(current);
        current = new ArrayList<>();
      }
      current.add(t);
      currentAverage = current.stream().mapToLong(TableEntry::fileSizeBytes).average().orElse(0);
    }
    if (!current.isEmpty()) {
      buckets.add(current);
    }
    List<TableEntry> best = List.of();
    for (List<TableEntry> bucket : buckets) {
      if (bucket.size() >= minTables && bucket.size() > best.size()) {
        best = bucket;
      }
    }
    return best.size() > maxTables ? List.copyOf(best.subList(0, maxTables)) : List.copyOf(best);
  }
}
