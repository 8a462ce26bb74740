package io.frsm.lsm;

import io.frsm.cell.Key;
import io.frsm.lsm.memtable.Memtable;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a read sees: the active memtable, the frozen memtables not yet published as SSTables, the
 * live tables, and the quarantined ones, all from one instant. Immutable; replaced as a whole (so a
 * flushed memtable and its SSTable are never both missing). Reference-counted: the engine holds one
 * reference while the view is current, each read or scan one more.
 */
final class EngineView {
  final Memtable active;

  /** Frozen memtables, newest first. */
  final List<Memtable> frozen;

  /** Live tables, newest generation first. */
  final List<TableHandle> tables;

  final List<QuarantinedTable> quarantined;
  private final AtomicInteger refs = new AtomicInteger(1);

  EngineView(
      Memtable active,
      List<Memtable> frozen,
      List<TableHandle> tables,
      List<QuarantinedTable> quarantined) {
    this.active = active;
    this.frozen = List.copyOf(frozen);
    this.tables = List.copyOf(tables);
    this.quarantined = List.copyOf(quarantined);
    for (TableHandle t : this.tables) {
      t.retain();
    }
  }

  /** Takes a reference unless the view was already released; false means: reload the view. */
  boolean tryRetain() {
    while (true) {
      int n = refs.get();
      if (n == 0) {
        return false;
      }
      if (refs.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  void release() {
    int left = refs.decrementAndGet();
    assert left >= 0 : "view released too often";
    if (left == 0) {
      for (TableHandle t : tables) {
        t.release();
      }
    }
  }

  /** A quarantined table that may hold {@code key}, or null. */
  QuarantinedTable quarantinedHolding(Key key) {
    for (QuarantinedTable q : quarantined) {
      if (q.mayHold(key)) {
        return q;
      }
    }
    return null;
  }
}
