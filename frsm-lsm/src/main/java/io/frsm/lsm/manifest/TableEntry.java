package io.frsm.lsm.manifest;

/**
 * One live SSTable as the manifest records it. The token bounds and counts are kept here, not only
 * in the table's own footer, so that a table which turns out to be unreadable can still be fenced
 * off: reads of keys in its token range fail rather than silently returning older state.
 *
 * @param generation unique, increasing table number; the file is {@code sst-<generation>.db}
 * @param segregated flushed while segregation was on: never compacted with other tables until
 *     released (docs/DESIGN.md "Ring": an interim leader's tables are shipped to the natural
 *     leader)
 * @param quarantined found corrupt: the file sits in the {@code corrupt/} directory and every read
 *     of a key in its token range fails until an operator releases it after repairing the replica
 */
public record TableEntry(
    long generation,
    boolean segregated,
    boolean quarantined,
    long minToken,
    long maxToken,
    long fileSizeBytes,
    long cellCount) {

  public TableEntry {
    if (generation < 1) {
      throw new IllegalArgumentException("generation must be >= 1, was " + generation);
    }
    if (minToken > maxToken) {
      throw new IllegalArgumentException("minToken " + minToken + " > maxToken " + maxToken);
    }
  }

  public String fileName() {
    return fileName(generation);
  }

  public static String fileName(long generation) {
    return String.format("sst-%020d.db", generation);
  }

  public TableEntry withSegregated(boolean value) {
    return new TableEntry(
        generation, value, quarantined, minToken, maxToken, fileSizeBytes, cellCount);
  }

  public TableEntry withQuarantined(boolean value) {
    return new TableEntry(
        generation, segregated, value, minToken, maxToken, fileSizeBytes, cellCount);
  }

  public boolean coversToken(long token) {
    return minToken <= token && token <= maxToken;
  }

  public boolean overlapsTokens(long fromInclusive, long toInclusive) {
    return minToken <= toInclusive && fromInclusive <= maxToken;
  }
}
