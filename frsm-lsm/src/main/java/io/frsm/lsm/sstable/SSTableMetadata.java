package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import java.nio.file.Path;

/**
 * What one finished table holds. A table holds at least one cell, so both keys are non-null.
 *
 * @param maxWriteTimeMs the largest {@code writeTimeMs} of its cells
 * @param hasPurgeMarks some cell carries a purge mark (compaction may be able to drop keys)
 */
public record SSTableMetadata(
    Path path,
    long fileSizeBytes,
    long cellCount,
    Key firstKey,
    Key lastKey,
    long maxWriteTimeMs,
    boolean hasPurgeMarks,
    int formatVersion) {}
