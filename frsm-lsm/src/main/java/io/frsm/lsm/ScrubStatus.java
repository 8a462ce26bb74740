package io.frsm.lsm;

/**
 * Where the background scrub stands, for an admin status (issue 23 point 3). Counts are since the
 * engine opened; the position survives restarts.
 *
 * @param enabled whether the scrub runs ({@code scrubEnabled})
 * @param passesCompleted full passes over every table, persisted across restarts
 * @param generation the table the current pass is in (0: at the start of a pass)
 * @param nextBlock the first block of that table not yet verified
 * @param bytesScrubbed data block bytes verified since the engine opened
 * @param tablesScrubbed tables verified to their end since the engine opened
 * @param corruptBlocksFound data blocks the scrub found corrupt (and quarantined) since then
 */
public record ScrubStatus(
    boolean enabled,
    long passesCompleted,
    long generation,
    int nextBlock,
    long bytesScrubbed,
    long tablesScrubbed,
    long corruptBlocksFound) {}
