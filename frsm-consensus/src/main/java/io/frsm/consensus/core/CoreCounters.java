package io.frsm.consensus.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The core's running counters, bumped on the core's single thread as operations end and rounds are
 * sent, and read by {@link #snapshot()} from any thread: the driver builds a snapshot only when a
 * meter or a caller asks (every few seconds), not on every 2 ms tick as it did when the core
 * published one per tick for other threads.
 *
 * <p>Each counter is written with an opaque store and read with an opaque load: a reader on another
 * thread sees each counter whole and never going back, at no cost to the core's thread (a plain
 * store on x86 and ARM; a volatile store would fence on every bump). A snapshot is not atomic
 * across counters: one taken while an operation ends may count it in {@code gets} but not yet in
 * {@code readsLeaderOnly}. Readers compare counters once the node is quiet, or each on its own.
 */
final class CoreCounters {
  private static final int GETS = 0;
  private static final int CREATES = 1;
  private static final int CASES = 2;
  private static final int DELETES = 3;
  private static final int FENCES = 4;
  private static final int CAS_WARM = 5;
  private static final int CAS_COLD = 6;
  private static final int READS_LEADER_ONLY = 7;
  private static final int READS_QUORUM = 8;
  private static final int READS_MUTATING_QUORUM = 9;
  private static final int MISMATCHES = 10;
  private static final int KEY_EXISTS = 11;
  private static final int UNKNOWN_OUTCOMES = 12;
  private static final int NOT_EXECUTED = 13;
  private static final int PREPARES_SENT = 14;
  private static final int ACCEPTS_SENT = 15;
  private static final int MISMATCHES_LEADER_ONLY = 16;
  private static final int STALE_RING_REFUSED = 17;
  private static final int STALE_RING_REPLIES = 18;
  private static final int KEYS_SETTLED_BY_SCAN = 19;
  private static final int KEYS_SETTLED_BY_PULL = 20;
  private static final int PULL_SETTLE_NANOS = 21;
  private static final int KEYS_SKIPPED_BY_SCAN = 22;
  private static final int SETTLE_READ_RETRIES = 23;
  private static final int SETTLE_ROUNDS_PREEMPTED = 24;
  private static final int COUNTERS = 25;

  private static final VarHandle COUNTER = MethodHandles.arrayElementVarHandle(long[].class);

  /** Written by the core's thread only (so its own plain reads are current); see the class. */
  private final long[] counts = new long[COUNTERS];

  /** On the core's thread: adds {@code by} to counter {@code i}. */
  private void add(int i, long by) {
    COUNTER.setOpaque(counts, i, counts[i] + by);
  }

  /** Any thread. */
  private long read(int i) {
    return (long) COUNTER.getOpaque(counts, i);
  }

  /** A membership settle's read of a key ended without a value: the key is read again. */
  void settleReadRetried() {
    add(SETTLE_READ_RETRIES, 1);
  }

  /** A round of a membership settle's read was refused for a higher ballot promised. */
  void settleRoundPreempted() {
    add(SETTLE_ROUNDS_PREEMPTED, 1);
  }

  /** A holder's range scan left a key unsettled after reads that did not answer. */
  void keySkippedByScan() {
    add(KEYS_SKIPPED_BY_SCAN, 1);
  }

  /** A range scan's read of a key in the scan's own order answered. */
  void keySettledByScan() {
    add(KEYS_SETTLED_BY_SCAN, 1);
  }

  /** A key pulled forward by an operation was settled, {@code nanos} after the pull. */
  void keySettledByPull(long nanos) {
    add(KEYS_SETTLED_BY_PULL, 1);
    add(PULL_SETTLE_NANOS, nanos);
  }

  /** This node's acceptor refused a request or purge for its outdated ring version. */
  void staleRingRefused() {
    add(STALE_RING_REFUSED, 1);
  }

  /** One of this node's rounds was refused for its ring version ({@link Message.StaleRing}). */
  void staleRingReply() {
    add(STALE_RING_REPLIES, 1);
  }

  void prepareSent() {
    add(PREPARES_SENT, 1);
  }

  void acceptSent() {
    add(ACCEPTS_SENT, 1);
  }

  /**
   * An operation ended with {@code outcome}. {@code prepared}: it ran a prepare; {@code accepted}:
   * it sent an accept; {@code leaderOnly}: answered from the local cell under the lease (a get, or
   * a CAS or delete that failed as a mismatch); {@code readMode}: how a get that returned a value
   * or absence was served ({@link ReadMode#of}), else null.
   */
  void finished(
      Operation operation,
      Outcome outcome,
      boolean prepared,
      boolean accepted,
      boolean leaderOnly,
      ReadMode readMode) {
    if (operation instanceof Operation.Get) {
      add(GETS, 1);
      if (readMode == ReadMode.LEADER_ONLY) {
        add(READS_LEADER_ONLY, 1);
      } else if (readMode == ReadMode.MUTATING_QUORUM) {
        add(READS_MUTATING_QUORUM, 1);
      } else if (readMode == ReadMode.QUORUM) {
        add(READS_QUORUM, 1);
      }
    } else if (operation instanceof Operation.Create) {
      add(CREATES, 1);
    } else if (operation instanceof Operation.Cas) {
      add(CASES, 1);
      if (prepared) {
        add(CAS_COLD, 1);
      } else if (accepted) {
        add(CAS_WARM, 1);
      }
    } else if (operation instanceof Operation.Delete) {
      add(DELETES, 1);
    } else if (operation instanceof Operation.Fence) {
      add(FENCES, 1);
    }
    if (outcome instanceof Outcome.Mismatch) {
      add(MISMATCHES, 1);
      if (leaderOnly) {
        add(MISMATCHES_LEADER_ONLY, 1);
      }
    } else if (outcome instanceof Outcome.Exists) {
      add(KEY_EXISTS, 1);
    } else if (outcome instanceof Outcome.Unknown) {
      add(UNKNOWN_OUTCOMES, 1);
    } else if (outcome instanceof Outcome.NotExecuted) {
      add(NOT_EXECUTED, 1);
    }
  }

  /** Any thread: the counters as they are now (see the class on atomicity). */
  CoreStats snapshot() {
    return new CoreStats(
        read(GETS),
        read(CREATES),
        read(CASES),
        read(DELETES),
        read(FENCES),
        read(CAS_WARM),
        read(CAS_COLD),
        read(READS_LEADER_ONLY),
        read(READS_QUORUM),
        read(READS_MUTATING_QUORUM),
        read(MISMATCHES),
        read(KEY_EXISTS),
        read(UNKNOWN_OUTCOMES),
        read(NOT_EXECUTED),
        read(PREPARES_SENT),
        read(ACCEPTS_SENT),
        read(MISMATCHES_LEADER_ONLY),
        read(STALE_RING_REFUSED),
        read(STALE_RING_REPLIES),
        read(KEYS_SETTLED_BY_SCAN),
        read(KEYS_SETTLED_BY_PULL),
        read(PULL_SETTLE_NANOS),
        read(KEYS_SKIPPED_BY_SCAN),
        read(SETTLE_READ_RETRIES),
        read(SETTLE_ROUNDS_PREEMPTED));
  }
}
