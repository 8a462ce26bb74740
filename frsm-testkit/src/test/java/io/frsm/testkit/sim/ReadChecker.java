package io.frsm.testkit.sim;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads return the newest value: a read that returns version v is a violation if, before the read
 * was handed to its node, some client was already told of a newer version (a write that took
 * effect, a mismatch or key-exists carrying the current value, or another read). That is the stale
 * read a second leader or an expired lease would produce (docs/DESIGN.md "Lease invariant").
 *
 * <p>Checked for every successful read that returns a value, and for every CAS or delete mismatch
 * that reports a current value; answers that show absent carry no version and are not checked here
 * (the counter workload's final read covers lost values).
 */
public final class ReadChecker {
  /** Per key, acknowledged versions in time order, each with the newest version up to then. */
  private final Map<Key, List<long[]>> acknowledged = new HashMap<>();

  private long readsChecked;
  private Simulation sim;

  public void install(Simulation simulation) {
    this.sim = simulation;
    simulation.setClientObserver(this::answered);
  }

  public long readsChecked() {
    return readsChecked;
  }

  private void answered(int node, Operation op, long invokedNanos, Outcome outcome) {
    Optional<Versioned> shown = shownValue(outcome);
    if (shown.isEmpty()) {
      return;
    }
    Version v = shown.get().version();
    Key key = op.key();
    List<long[]> acks = acknowledged.computeIfAbsent(key, k -> new ArrayList<>());
    // A failed CAS or delete is a read too: the current value its mismatch reports must be as new
    // (leader-only mismatches answer from the local cell, like leader-only reads).
    boolean mismatch = outcome instanceof Outcome.Mismatch;
    if (op instanceof Operation.Get || mismatch) {
      readsChecked++;
      long[] newest = newestBefore(acks, invokedNanos);
      if (newest != null && compare(newest[1], newest[2], v) > 0) {
        throw new SafetyViolation(
            (mismatch ? "stale mismatch on node " : "stale read on node ")
                + node
                + " of "
                + key
                + ": returned "
                + v
                + " but version ("
                + newest[1]
                + ", "
                + newest[2]
                + ") was acknowledged before the read was invoked at "
                + invokedNanos / 1000
                + "µs");
      }
    }
    // The answer is known to its client from now on (answers arrive in time order).
    long answeredAt = sim.nowNanos();
    long[] last = acks.isEmpty() ? null : acks.get(acks.size() - 1);
    boolean newer = last == null || compare(last[1], last[2], v) < 0;
    acks.add(
        newer
            ? new long[] {answeredAt, v.epoch(), v.timestamp()}
            : new long[] {answeredAt, last[1], last[2]});
  }

  private static Optional<Versioned> shownValue(Outcome outcome) {
    if (outcome instanceof Outcome.Written w) {
      return Optional.of(new Versioned(new byte[0], w.version()));
    }
    if (outcome instanceof Outcome.Deleted d) {
      return Optional.of(new Versioned(new byte[0], d.version()));
    }
    if (outcome instanceof Outcome.ReadResult r) {
      return r.value();
    }
    if (outcome instanceof Outcome.Mismatch m) {
      return m.current();
    }
    if (outcome instanceof Outcome.Exists e) {
      return Optional.of(e.current());
    }
    return Optional.empty();
  }

  /** The newest acknowledged version whose answer came strictly before {@code nanos}. */
  private static long[] newestBefore(List<long[]> acks, long nanos) {
    int low = 0;
    int high = acks.size();
    while (low < high) {
      int mid = (low + high) >>> 1;
      if (acks.get(mid)[0] < nanos) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    return low == 0 ? null : acks.get(low - 1);
  }

  private static int compare(long epoch, long timestamp, Version v) {
    int c = Long.compare(epoch, v.epoch());
    return c != 0 ? c : Long.compare(timestamp, v.timestamp());
  }
}
