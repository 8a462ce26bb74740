package io.frsm.consensus.core;

/**
 * Tells a {@link ReadGate} (reads served outside the core's thread) each range whose leader-only
 * servability changed: its term, its entry into leader-only mode and the lease's end. Every part of
 * {@link LeaseState} that writes a range's term, lease end or leader-only mode marks it here
 * ({@link #servabilityChanged}), so a step that wrote none of them skips the walk over the ranges;
 * every {@link #FULL_CHECK_EVERY}th publication walks anyway and throws if it finds a change nobody
 * marked.
 */
final class ServabilityPublication {
  private final RangeLeases leases;

  /** Told of every change to a range's servability (reads outside the core's thread). */
  private ReadGate gate = ReadGate.NONE;

  /** A write that decides a range's servability happened since the last publication. */
  private boolean servabilityChanged;

  /** Publications skipped for want of a change; every {@link #FULL_CHECK_EVERY}th runs anyway. */
  private long publishesSkipped;

  private static final int FULL_CHECK_EVERY = 1024;

  private long[] publishedUntil;
  private long[] publishedTerm;
  private long[] modeEntries;
  private boolean[] wasLeaderOnly;

  ServabilityPublication(RangeLeases leases) {
    this.leases = leases;
  }

  /**
   * From now on {@code gate} learns, at the end of every step, each range whose servability changed
   * (see {@link #publish}).
   */
  void publishTo(ReadGate gate) {
    this.gate = java.util.Objects.requireNonNull(gate);
    int count = leases.count();
    publishedUntil = new long[count];
    publishedTerm = new long[count];
    modeEntries = new long[count];
    wasLeaderOnly = new boolean[count];
    java.util.Arrays.fill(publishedUntil, Long.MIN_VALUE);
  }

  /**
   * Tells the gate each range whose leader-only servability changed since the last call: until when
   * (the lease's end while in leader-only mode in the current term, else never), in which term and
   * which entry into leader-only mode. Called at the end of every step, before its effects are
   * carried out, so a lease lost or released in the step is known to the gate before anything the
   * step sends (a release's answer above all: its mark lets a successor write at once).
   */
  void publish() {
    if (gate == ReadGate.NONE) {
      return;
    }
    if (!servabilityChanged && ++publishesSkipped % FULL_CHECK_EVERY != 0) {
      return; // nothing that decides servability was written since the last publication
    }
    boolean expectChange = servabilityChanged;
    servabilityChanged = false;
    for (int i = 0; i < leases.count(); i++) {
      RangeLease r = leases.at(i);
      boolean leaderOnly = r.leaderOnly && r.term > 0;
      if (leaderOnly && !wasLeaderOnly[i]) {
        modeEntries[i]++; // a new stretch of leader-only mode: values read before it are not ok
      }
      wasLeaderOnly[i] = leaderOnly;
      long until = leaderOnly ? r.leaseEndMonoNanos : Long.MIN_VALUE;
      if (until != publishedUntil[i] || r.term != publishedTerm[i]) {
        // Every write of term, lease end or leader-only mode marks a change; a difference found
        // without one is a write site that forgot to (the gate would have served on stale state).
        if (!expectChange) {
          throw new IllegalStateException(
              "range " + i + " changed servability without servabilityChanged(): " + r);
        }
        publishedUntil[i] = until;
        publishedTerm[i] = r.term;
        gate.range(i, r.term, modeEntries[i], until);
      }
    }
  }

  /** Marks that a range's term, lease end or leader-only mode was just written. */
  void servabilityChanged() {
    servabilityChanged = true;
  }
}
