package io.frsm.lsm.manifest;

import java.util.ArrayList;
import java.util.List;

/**
 * One live SSTable as the manifest records it. The token bounds and counts are kept here, not only
 * in the table's own footer, so that a table which turns out to be unreadable can still be fenced
 * off: reads of keys in its token range fail rather than silently returning older state.
 *
 * @param generation unique, increasing table number; the file is {@code sst-<generation>.db}
 * @param segregated flushed while segregation was on: never compacted with other tables until
 *     released (docs/DESIGN.md "Ring": an interim leader's tables are shipped to the natural
 *     leader)
 * @param quarantined found corrupt as a whole (footer, index, filter or properties): the file sits
 *     in the {@code corrupt/} directory and every read of a key in its token range fails until the
 *     quarantine is released after a repair of the replica
 * @param quarantinedIntervals the token spans of data blocks found corrupt in a table that stays in
 *     service (block-grain quarantine): reads of keys the table may hold in these spans fail until
 *     released; the rest of the table is served. Normalized (sorted, disjoint), at most {@link
 *     #MAX_QUARANTINED_INTERVALS}, each inside {@code [minToken, maxToken]}.
 */
public record TableEntry(
    long generation,
    boolean segregated,
    boolean quarantined,
    long minToken,
    long maxToken,
    long fileSizeBytes,
    long cellCount,
    List<TokenInterval> quarantinedIntervals) {

  /**
   * Bounds the manifest entry of one table; a table with more damaged spans is quarantined whole
   * (so many corrupt blocks say the whole file is suspect anyway).
   */
  public static final int MAX_QUARANTINED_INTERVALS = 64;

  public TableEntry {
    if (generation < 1) {
      throw new IllegalArgumentException("generation must be >= 1, was " + generation);
    }
    if (minToken > maxToken) {
      throw new IllegalArgumentException("minToken " + minToken + " > maxToken " + maxToken);
    }
    quarantinedIntervals = List.copyOf(quarantinedIntervals);
    if (quarantinedIntervals.size() > MAX_QUARANTINED_INTERVALS) {
      throw new IllegalArgumentException(
          quarantinedIntervals.size()
              + " quarantined intervals, above the limit "
              + MAX_QUARANTINED_INTERVALS);
    }
    if (!TokenInterval.normalize(quarantinedIntervals).equals(quarantinedIntervals)) {
      throw new IllegalArgumentException(
          "quarantined intervals not sorted and disjoint: " + quarantinedIntervals);
    }
    for (TokenInterval t : quarantinedIntervals) {
      if (t.fromToken() < minToken || t.toToken() > maxToken) {
        throw new IllegalArgumentException(
            "quarantined interval " + t + " outside the table's tokens " + tokenSpan());
      }
    }
  }

  /** An entry without quarantined intervals. */
  public TableEntry(
      long generation,
      boolean segregated,
      boolean quarantined,
      long minToken,
      long maxToken,
      long fileSizeBytes,
      long cellCount) {
    this(
        generation,
        segregated,
        quarantined,
        minToken,
        maxToken,
        fileSizeBytes,
        cellCount,
        List.of());
  }

  public String fileName() {
    return fileName(generation);
  }

  public static String fileName(long generation) {
    return String.format("sst-%020d.db", generation);
  }

  public TableEntry withSegregated(boolean value) {
    return new TableEntry(
        generation,
        value,
        quarantined,
        minToken,
        maxToken,
        fileSizeBytes,
        cellCount,
        quarantinedIntervals);
  }

  public TableEntry withQuarantined(boolean value) {
    return new TableEntry(
        generation,
        segregated,
        value,
        minToken,
        maxToken,
        fileSizeBytes,
        cellCount,
        quarantinedIntervals);
  }

  /**
   * This entry with {@code interval} (clipped to the table's tokens) added to its quarantined
   * intervals, or null if that would exceed {@link #MAX_QUARANTINED_INTERVALS}: the caller then
   * quarantines the whole table.
   */
  public TableEntry withQuarantinedInterval(TokenInterval interval) {
    if (!overlapsTokens(interval.fromToken(), interval.toToken())) {
      throw new IllegalArgumentException(
          "interval " + interval + " outside the table's tokens " + tokenSpan());
    }
    List<TokenInterval> next = new ArrayList<>(quarantinedIntervals);
    next.add(
        new TokenInterval(
            Math.max(minToken, interval.fromToken()), Math.min(maxToken, interval.toToken())));
    next = TokenInterval.normalize(next);
    if (next.size() > MAX_QUARANTINED_INTERVALS) {
      return null;
    }
    return new TableEntry(
        generation, segregated, quarantined, minToken, maxToken, fileSizeBytes, cellCount, next);
  }

  /** Whether a data block of this table is quarantined (the rest of the table is served). */
  public boolean hasQuarantinedBlocks() {
    return !quarantinedIntervals.isEmpty();
  }

  /** The quarantined interval holding {@code token}, or null. */
  public TokenInterval quarantinedIntervalHolding(long token) {
    for (TokenInterval t : quarantinedIntervals) {
      if (t.contains(token)) {
        return t;
      }
    }
    return null;
  }

  /** The quarantined interval overlapping {@code [from, to]}, or null. */
  public TokenInterval quarantinedIntervalOverlapping(long fromInclusive, long toInclusive) {
    for (TokenInterval t : quarantinedIntervals) {
      if (t.overlaps(fromInclusive, toInclusive)) {
        return t;
      }
    }
    return null;
  }

  public TokenInterval tokenSpan() {
    return new TokenInterval(minToken, maxToken);
  }

  public boolean coversToken(long token) {
    return minToken <= token && token <= maxToken;
  }

  public boolean overlapsTokens(long fromInclusive, long toInclusive) {
    return minToken <= toInclusive && fromInclusive <= maxToken;
  }
}
