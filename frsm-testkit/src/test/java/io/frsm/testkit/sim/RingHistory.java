package io.frsm.testkit.sim;

import io.frsm.consensus.core.Placement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The durable ring history of a simulated cluster, as the coordination service (ZooKeeper) holds it
 * for the server: every published placement by ring version, and the retired node ids (removed, or
 * wiped) that must never replicate again. The orchestrator appends; restarted nodes start with
 * {@link #latest()}; the checkers look up the voters of the version a message carried.
 *
 * <p>Not thread-safe: the simulation is single-threaded.
 */
final class RingHistory {
  /** Placements in version order; consecutive entries have consecutive versions. */
  private final List<Placement> versions = new ArrayList<>();

  private final Set<Integer> retired = new TreeSet<>();

  /** Per range: every node that was a voter or learner of it in some published version. */
  private final List<Set<Integer>> everMembers = new ArrayList<>();

  RingHistory(Placement initial) {
    for (int range = 0; range < initial.rangeCount(); range++) {
      everMembers.add(new HashSet<>());
    }
    append(initial);
  }

  Placement latest() {
    return versions.get(versions.size() - 1);
  }

  /**
   * Records {@code next} as published. The same placement again is a no-op (a re-sent notice);
   * otherwise its version must be the next one.
   *
   * @throws IllegalArgumentException for a gap, an older version, or another placement at a known
   *     version
   */
  void publish(Placement next) {
    Placement latest = latest();
    if (next.equals(latest)) {
      return;
    }
    if (next.ringVersion() != latest.ringVersion() + 1) {
      throw new IllegalArgumentException(
          "ring version " + next.ringVersion() + " cannot follow " + latest.ringVersion());
    }
    append(next);
  }

  private void append(Placement placement) {
    versions.add(placement);
    for (int range = 0; range < Math.min(placement.rangeCount(), everMembers.size()); range++) {
      everMembers.get(range).addAll(placement.members(range));
    }
  }

  /**
   * The placement published at {@code version}; for a version outside the history (a message of a
   * test that changes placements by hand), the newest one at or below it, else the first.
   */
  Placement at(long version) {
    long first = versions.get(0).ringVersion();
    int index = version <= first ? 0 : (int) Math.min(version - first, versions.size() - 1);
    return versions.get(index);
  }

  /** The placements published at {@code version} or later (every one if it is below the first). */
  List<Placement> since(long version) {
    long first = versions.get(0).ringVersion();
    int from = version <= first ? 0 : (int) Math.min(version - first, versions.size());
    return Collections.unmodifiableList(versions.subList(from, versions.size()));
  }

  /** Whether {@code node} was a voter or learner of {@code range} in some published version. */
  boolean everMember(int range, int node) {
    return range < everMembers.size() && everMembers.get(range).contains(node);
  }

  /** Marks {@code node} retired: no later version may name it. */
  void retire(int node) {
    retired.add(node);
  }

  Set<Integer> retired() {
    return Collections.unmodifiableSet(retired);
  }

  int size() {
    return versions.size();
  }
}
