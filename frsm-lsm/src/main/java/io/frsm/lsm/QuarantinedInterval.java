package io.frsm.lsm;

import io.frsm.lsm.manifest.TokenInterval;

/**
 * A part of this replica's state it cannot vouch for: the token span of a corrupt data block, or
 * the token range of a table quarantined whole. The node must not vote on, or serve from its local
 * cells, any key in it until the interval is repaired from the other replicas and {@link
 * LsmEngine#releaseQuarantine(long)} ends the quarantine of table {@code generation}.
 *
 * @param generation the table the damage is in
 * @param tokens the quarantined tokens (closed interval)
 * @param wholeTable the table is quarantined whole (its file sits in {@code corrupt/})
 */
public record QuarantinedInterval(long generation, TokenInterval tokens, boolean wholeTable) {}
