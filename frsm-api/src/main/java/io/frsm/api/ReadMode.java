package io.frsm.api;

/**
 * How a client's {@code get} reads a key ({@link FrsmClient#withReadMode}). Every mode is
 * linearizable: a get returns the newest value chosen before it returned, and never one older than
 * a value an earlier get of the same client returned. The modes differ in what that guarantee rests
 * on and what it costs.
 */
public enum ReadMode {
  /**
   * The default. While the key's range leader holds its lease, it answers from its own copy with no
   * message to the other replicas (the fastest read); otherwise (a new leader catching up, no lease
   * yet) the read goes to a quorum of replicas. The lease-served answer relies on the nodes' clocks
   * drifting apart by no more than the configured bound ρ ({@code consensus.clockDriftPpm}) during
   * one lease.
   */
  LEADER_WHEN_AVAILABLE,

  /**
   * Always reads a quorum of the key's replicas (at least one round trip to them, and a write when
   * it finds a value not yet known to be chosen), even while the leader holds its lease: the answer
   * rests on no clock bound. A node of an older build ignores the request for a quorum and may
   * answer under its lease.
   */
  QUORUM,

  /**
   * Runs the read as a {@link FrsmClient#fence}: a Paxos write that moves the key's version on and
   * returns the value at its new version. Besides being linearizable without any clock bound, once
   * it returns version V no CAS or delete expecting an older version can succeed (it settles a
   * mutation whose outcome was unknown). The most expensive mode, and it changes the version other
   * clients' CAS calls expect.
   */
  FENCED
}
