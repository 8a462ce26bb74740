package io.frsm.consensus.core;

import java.util.Arrays;

/**
 * The acceptor's side of ring versions (docs/PROTOCOL.md "Membership changes"): the version this
 * node installed, and per range the version at which the range's members last changed for it. A
 * request of range {@code r} carrying a version below {@code changedAt(r)} was counted over a set
 * that is no longer the range's: it is refused ({@link Message.StaleRing}), so once a quorum of the
 * new set installed it, no quorum of the old set can form any more.
 *
 * <p>A core built from a placement knows no history: every range counts as changed at that
 * placement's version (refusing more than needed is only slower, never unsafe).
 *
 * <p>REQUIRES of the driver: a core is (re)built with a placement at least as new as every version
 * the node reported installed ({@link Effect.RingInstalled}); the installation is durable in the
 * coordination service, not in the node's store (the server reads the ring there, after a sync,
 * before it builds a core).
 */
final class RingVersions {
  private long version;
  private final long[] changedAt;

  RingVersions(Placement placement) {
    this.version = placement.ringVersion();
    this.changedAt = new long[placement.rangeCount()];
    Arrays.fill(changedAt, version);
  }

  int rangeCount() {
    return changedAt.length;
  }

  long version() {
    return version;
  }

  /** The version at which range {@code range}'s voters or learners last changed for this node. */
  long changedAt(int range) {
    return changedAt[range];
  }

  /** Whether a request of range {@code range} at {@code requestVersion} must be refused. */
  boolean stale(int range, long requestVersion) {
    return requestVersion < changedAt[range];
  }

  void install(PlacementChange change) {
    long next = change.next().ringVersion();
    if (next <= version) {
      throw new IllegalStateException("ring version " + next + " is not above " + version);
    }
    version = next;
    for (int range = 0; range < changedAt.length; range++) {
      if (change.membersChanged(range)) {
        changedAt[range] = next;
      }
    }
  }
}
