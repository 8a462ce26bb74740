package io.frsm.testkit.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Each node's durable hand-off base records (docs/PROTOCOL.md "The durable base"), kept as the
 * server's driver keeps them: on {@link Effect.BaseReached} the node's store is flushed, and once
 * the flush is durable the record is written, each after a disk latency (a crash in between loses
 * what was not done yet); {@link Effect.BaseDropped} deletes the record before the step's later
 * effects; at start every record is fed back as {@link Input.RestoreBase}. Records survive a crash,
 * not a wiped disk. The broken modes are the mutations the simulator must catch.
 */
final class DurableBases {
  /** How the driver keeps the records. */
  enum Mode {
    /** Flush, then the record once the flush is durable (the rule). */
    FLUSH_THEN_RECORD,
    /** Broken: the record first, the flush one disk latency later. */
    RECORD_BEFORE_FLUSH,
    /** Broken: the record and no flush; a crash then loses commits the restored base relies on. */
    RECORD_WITHOUT_FLUSH,
    /** Broken: the record stays when the node is granted a later term of the range. */
    NOT_DROPPED_AT_GRANT,
    /**
     * Broken for entry bases only (docs/PROTOCOL.md "A killed holder: covering its term", step 3):
     * an entry base's record first, its flush one disk latency later; graceful bases as the rule.
     */
    ENTRY_RECORD_BEFORE_FLUSH,
    /** No records: every restart scans (the behaviour before durable bases). */
    OFF
  }

  record Record(int range, long term, long ringVersion, boolean entry) {}

  private Mode mode = Mode.FLUSH_THEN_RECORD;

  /**
   * False: entry bases are neither flushed nor recorded, so a scenario tests the graceful base
   * alone ({@link DurableBaseScenario}).
   */
  private boolean entryRecords = true;

  private final Map<Integer, TreeMap<Integer, Record>> records = new HashMap<>();
  private long written;
  private long dropped;
  private long flushes;
  private long entryWritten;

  Mode mode() {
    return mode;
  }

  void mode(Mode mode) {
    this.mode = java.util.Objects.requireNonNull(mode);
  }

  boolean entryRecords() {
    return entryRecords;
  }

  void entryRecords(boolean on) {
    entryRecords = on;
  }

  /** The node's records, in range order. */
  List<Record> of(int node) {
    TreeMap<Integer, Record> r = records.get(node);
    return r == null ? List.of() : new ArrayList<>(r.values());
  }

  void write(int node, Effect.BaseReached b) {
    written++;
    if (b.entry()) {
      entryWritten++;
    }
    records
        .computeIfAbsent(node, n -> new TreeMap<>())
        .put(b.range(), new Record(b.range(), b.term(), b.ringVersion(), b.entry()));
  }

  void drop(int node, int range) {
    if (mode == Mode.NOT_DROPPED_AT_GRANT) {
      return;
    }
    TreeMap<Integer, Record> r = records.get(node);
    if (r != null && r.remove(range) != null) {
      dropped++;
    }
  }

  /** The node's disk is gone: so are its records. */
  void wiped(int node) {
    records.remove(node);
  }

  void flushed() {
    flushes++;
  }

  long written() {
    return written;
  }

  /** Of {@link #written}, the entry bases' records. */
  long entryWritten() {
    return entryWritten;
  }

  long dropped() {
    return dropped;
  }

  long flushes() {
    return flushes;
  }

  /** Flushes and records done so far: what a crash point counts. */
  long writes() {
    return flushes + written;
  }
}
