package io.frsm.lsm;

import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.manifest.TokenInterval;

/**
 * A read needed data that was found corrupt and quarantined: a damaged data block (its token span)
 * or a whole damaged table (its token range). The replica cannot answer for keys there until that
 * interval is repaired from the other replicas and the quarantine released ({@link
 * LsmEngine#releaseQuarantine}): answering from the remaining tables could return older state, and
 * a consensus replica answering from older state could promise or accept below what it already
 * promised.
 */
public final class QuarantinedRangeException extends java.io.IOException {
  private final long generation;
  private final TokenInterval interval;

  /** The whole table {@code table} is quarantined. */
  public QuarantinedRangeException(TableEntry table, String keyDescription) {
    this(table, table.tokenSpan(), keyDescription);
  }

  /** The part {@code interval} of {@code table} is quarantined. */
  public QuarantinedRangeException(
      TableEntry table, TokenInterval interval, String keyDescription) {
    super(
        "cannot read key "
            + keyDescription
            + ": tokens "
            + interval
            + " of table "
            + table.fileName()
            + " are quarantined as corrupt; this replica needs repair of that interval from the"
            + " other replicas");
    this.generation = table.generation();
    this.interval = interval;
  }

  /**
   * Every token is fenced: damage in the durable part of the commit log lost records of unknown
   * keys (generation {@code 0}, see {@link LsmEngine#quarantinedIntervals()}).
   */
  static QuarantinedRangeException replicaFenced(String keyDescription) {
    return new QuarantinedRangeException(
        "cannot read key "
            + keyDescription
            + ": the commit log lost acknowledged records of unknown keys; every token is"
            + " quarantined and this replica needs repair of all its ranges");
  }

  private QuarantinedRangeException(String message) {
    super(message);
    this.generation = 0;
    this.interval = new TokenInterval(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  public long generation() {
    return generation;
  }

  /** The quarantined tokens the read needed. */
  public TokenInterval interval() {
    return interval;
  }
}
