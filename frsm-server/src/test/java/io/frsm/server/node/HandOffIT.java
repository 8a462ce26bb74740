package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.HandBackCounts;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-off instead of a scan on real nodes (docs/PROTOCOL.md "Hand-off instead of a scan"): node 1,
 * the natural leader of its ranges, gives them up through the step-down path without restarting
 * (the test reports their quorums lost, as the quorum watch would on a flapping link, while the
 * peers stay reachable, so its drain can settle), the stand-ins serve them under a counter load,
 * and when node 1 competes again each stand-in drains, ships to node 1 and releases: node 1 enters
 * leader-only mode by importing the shipments, not by scanning. With {@code consensus.handOff} off
 * the same return scans. Both under load, no acknowledged increment lost or doubled.
 */
class HandOffIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void handBack_withTheFlagOn_theReturningLeaderImports_insteadOfScanning(@TempDir Path dir)
      throws Exception {
    Result r = run(dir, true);
    assertEquals(0, r.newScans, "node 1 scanned a range it got back with a shipment");
    assertTrue(r.imported >= r.ranges, "ranges entered by import: " + r.imported);
    assertTrue(r.standIns.acknowledged() >= r.ranges, "shipments acknowledged: " + r.standIns);
  }

  @Test
  void handBack_withTheFlagOff_theReturningLeaderScans(@TempDir Path dir) throws Exception {
    Result r = run(dir, false);
    assertEquals(0, r.imported, "no import without the flag");
    assertTrue(r.newScans >= r.ranges, "node 1 scanned its ranges: " + r.newScans);
    assertEquals(0, r.standIns.begun(), "no hand-off began: " + r.standIns);
  }

  private record Result(
      int ranges, long newScans, long imported, HandBackCounts standIns, long backMillis) {}

  private static Result run(Path dir, boolean handOff) throws Exception {
    try (TestCluster cluster =
        TestCluster.withTweaks(dir, b -> b.set(ConsensusKeys.HAND_OFF, handOff))) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (ring.replicasOfRange(r).get(0) == 1) {
          ledBy1.add(r);
        }
      }
      FrsmNode n1 = cluster.node(1);
      HotKeyLoad load = new HotKeyLoad(cluster, ledBy1);
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");
      // Node 1 serves its ranges leader-only (its scans done): a hand-off records its base then.
      Await.until(
          () -> tally(n1).scansCompleted() >= ledBy1.size(), TIMEOUT, "node 1 to scan its ranges");

      n1.servingParts().leadership().quorumChanged(Set.copyOf(ledBy1), Set.of());
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
      }
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments at the stand-ins");
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "more increments at the stand-ins");

      HandOffTally before = tally(n1);
      long backAt = System.nanoTime();
      n1.servingParts().leadership().quorumChanged(Set.of(), Set.copyOf(ledBy1));
      cluster.awaitNaturalLeaders();
      Await.until(
          () -> {
            HandOffTally t = tally(n1);
            return t.enteredByImport()
                    - before.enteredByImport()
                    + t.scansCompleted()
                    - before.scansCompleted()
                >= ledBy1.size();
          },
          TIMEOUT,
          "node 1 to serve its ranges leader-only again");
      long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - backAt);
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments after the return");
      load.close();
      List<String> violations = load.counterViolations(cluster.thinClient());
      HandOffTally after = tally(n1);
      HandBackCounts standIns = sum(cluster);
      System.out.printf(
          "hand-off %s: %d ranges of node 1 back leader-only %d ms after it competed again; %d"
              + " by import, %d by scan; stand-ins %s; %d increments acknowledged, client errors"
              + " %d%n",
          handOff ? "on" : "off",
          ledBy1.size(),
          backMillis,
          after.enteredByImport() - before.enteredByImport(),
          after.scansCompleted() - before.scansCompleted(),
          standIns,
          load.keys().stream().mapToLong(k -> k.acknowledged.get()).sum(),
          load.errorCount());
      assertEquals(List.of(), violations, "acknowledged increments lost or doubled");
      return new Result(
          ledBy1.size(),
          after.scansCompleted() - before.scansCompleted(),
          after.enteredByImport() - before.enteredByImport(),
          standIns,
          backMillis);
    }
  }

  private static HandOffTally tally(FrsmNode n) {
    CoreShards core = n.servingParts().core();
    return core == null ? HandOffTally.ZERO : core.handOffTally();
  }

  /** The hand-backs of nodes 2 and 3, the stand-ins. */
  private static HandBackCounts sum(TestCluster cluster) {
    long[] s = new long[6];
    for (int id = 2; id <= 3; id++) {
      HandBackCounts c = cluster.node(id).servingParts().leadership().handBacks();
      long[] v = {
        c.begun(),
        c.shipped(),
        c.keysShipped(),
        c.acknowledged(),
        c.withoutShipment(),
        c.notAcknowledged()
      };
      for (int i = 0; i < 6; i++) {
        s[i] += v[i];
      }
    }
    return new HandBackCounts(s[0], s[1], s[2], s[3], s[4], s[5]);
  }
}
