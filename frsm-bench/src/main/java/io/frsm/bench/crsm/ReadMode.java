package io.frsm.bench.crsm;

/** How a shard leader answers {@link Command.Get}. */
public enum ReadMode {
  /**
   * The leader answers from its executed state machine without any message: the paper's baseline
   * ("leases enable the leader to serve reads on the LSM without any communication", NSDI '20
   * §2.2), comparable to frsm's leader-only reads. Linearizable only while no other replica leads
   * the shard: this baseline assumes stable leadership and, unlike frsm, holds no explicit lease.
   * The benchmarks use this mode; the failure simulation uses {@link #LOG}.
   */
  LEADER,
  /** Gets are sequenced through the log like writes: linearizable under any failure. */
  LOG
}
