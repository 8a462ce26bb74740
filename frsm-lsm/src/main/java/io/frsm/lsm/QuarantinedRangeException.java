package io.frsm.lsm;

import io.frsm.lsm.manifest.TableEntry;

/**
 * A read needed a table that was found corrupt and quarantined. The replica cannot answer for keys
 * in that table's token range until it is repaired (re-replicated from other replicas) and the
 * operator releases the quarantine: answering from the remaining tables could return older state.
 */
public final class QuarantinedRangeException extends java.io.IOException {
  private final long generation;

  public QuarantinedRangeException(TableEntry table, String keyDescription) {
    super(
        "cannot read key "
            + keyDescription
            + ": table "
            + table.fileName()
            + " holding tokens ["
            + table.minToken()
            + ", "
            + table.maxToken()
            + "] is quarantined as corrupt; repair this replica's range and release it");
    this.generation = table.generation();
  }

  public long generation() {
    return generation;
  }
}
