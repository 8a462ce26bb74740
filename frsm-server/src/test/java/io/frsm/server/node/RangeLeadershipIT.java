package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.RangeTermStore;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Range leadership on three real nodes: the natural leader is preferred, a stand-in takes over
 * while it is away and hands the range back once it is ready again, and a node whose ZooKeeper
 * session expired registers again and re-enters leadership with a new term.
 */
class RangeLeadershipIT {
  private static final Duration MOVE_TIMEOUT = Duration.ofSeconds(60);

  @Test
  void naturalLeaderIsPreferred_aStandInTakesOver_andHandsTheRangesBack(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = naturallyLedBy(ring, 1);
      assertTrue(!ledBy1.isEmpty(), "node 1 is the natural leader of some ranges");
      for (int r = 0; r < ring.rangeCount(); r++) {
        assertEquals(List.of(ring.replicasOfRange(r).get(0)), cluster.holdersOf(r));
      }
      byte[] key = keyIn(cluster, ledBy1.get(0));
      FrsmClient thin = cluster.thinClient();
      thin.create(key, "before".getBytes(UTF_8));

      long stoppedAt = System.nanoTime();
      cluster.node(1).close(); // graceful: leaves its latches at once
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), MOVE_TIMEOUT);
      }
      long movedNanos = System.nanoTime() - stoppedAt;
      assertArrayEquals("before".getBytes(UTF_8), thin.get(key).orElseThrow().value());
      thin.cas(key, thin.get(key).orElseThrow().version(), "stand-in".getBytes(UTF_8));
      long servedNanos = System.nanoTime() - stoppedAt;

      long restartAt = System.nanoTime();
      cluster.restart(1);
      for (int r : ledBy1) {
        cluster.awaitLeader(r, 1, MOVE_TIMEOUT);
      }
      long handBackNanos = System.nanoTime() - restartAt;
      // The stand-ins handed the ranges back on purpose: they released and marked their terms, so
      // node 1 took every one without waiting out a lease (graceful stop did the same for them).
      long released = 0;
      for (int n = 2; n <= cluster.size(); n++) {
        released += cluster.node(n).leaseHandovers()[0];
      }
      assertTrue(released >= ledBy1.size(), "stand-ins marked " + released + " releases");
      assertEquals(
          ledBy1.size(),
          cluster.node(1).leaseHandovers()[1],
          "node 1 took its ranges back without the wait");
      assertArrayEquals("stand-in".getBytes(UTF_8), thin.get(key).orElseThrow().value());
      System.out.printf(
          "leadership: %d ranges of node 1 moved to stand-ins %d ms after a graceful stop (first"
              + " CAS served after %d ms); handed back %d ms after its restart began%n",
          ledBy1.size(),
          TimeUnit.NANOSECONDS.toMillis(movedNanos),
          TimeUnit.NANOSECONDS.toMillis(servedNanos),
          TimeUnit.NANOSECONDS.toMillis(handBackNanos));
    }
  }

  /**
   * Regression: a node restarting into a formed cluster took its first leadership view before its
   * watch had read any ready marker, saw itself as the only ready replica of every range, joined
   * every latch and left the foreign ones again milliseconds later — churn in ZooKeeper, and
   * Curator's LeaderLatch (the latch then), closed while its first check was in flight, logged
   * SEVERE "failed to find our node; resetting". The view now waits for both watches; and neither
   * Curator nor frsm logs an error across the restart.
   */
  @Test
  void restartedNode_joinsOnlyTheLatchesOfItsOwnRanges_andNoLatchLosesItsNode(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir);
        CuratorFramework zk = cluster.zooKeeperClient()) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = naturallyLedBy(ring, 1);
      List<Integer> others = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (!ledBy1.contains(r)) {
          others.add(r);
        }
      }
      cluster.node(1).close();
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), MOVE_TIMEOUT);
      }
      Map<Integer, Integer> latchChangesBefore = latchChanges(zk, others);

      List<String> severe;
      try (LoggedProblems logged = LoggedProblems.capture(LoggedProblems.LIBRARIES_AND_FRSM)) {
        cluster.restart(1);
        for (int r : ledBy1) {
          cluster.awaitLeader(r, 1, MOVE_TIMEOUT);
        }
        severe = logged.severe();
      }

      assertEquals(
          latchChangesBefore,
          latchChanges(zk, others),
          "node 1 never joined the latch of a range whose natural leader serves");
      assertEquals(List.of(), severe, "neither a library nor frsm logged an error");
    }
  }

  /** Per range, how often its latch's children changed (a join or a leave each). */
  private static Map<Integer, Integer> latchChanges(CuratorFramework zk, List<Integer> ranges)
      throws Exception {
    ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
    Map<Integer, Integer> out = new HashMap<>();
    for (int r : ranges) {
      out.put(r, zk.checkExists().forPath(layout.latch(ZkLayout.rangeId(r))).getCversion());
    }
    return out;
  }

  @Test
  void expiredSession_registersAgain_andReentersLeadershipWithANewTerm(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir);
        CuratorFramework zk = cluster.zooKeeperClient()) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      Ring ring = cluster.ring();
      int range = naturallyLedBy(ring, 2).get(0);
      RangeTermStore terms =
          new RangeTermStore(zk, new ZkLayout(TestCluster.CLUSTER_ID), System::nanoTime);
      long termBefore = terms.current(ZkLayout.rangeId(range)).orElseThrow()[0];
      byte[] key = keyIn(cluster, range);
      FrsmClient thin = cluster.thinClient();
      thin.create(key, "0".getBytes(UTF_8));

      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      long oldSession = zk.checkExists().forPath(layout.member(2)).getEphemeralOwner();
      // An expiry is not a healthy run (ZooKeeper and the lease keeper warn), but the latches
      // whose entries went with the old session join again without an error.
      List<String> severe;
      List<String> bumpWarnings;
      try (LoggedProblems logged = LoggedProblems.capture(LoggedProblems.LIBRARIES_AND_FRSM)) {
        cluster.node(2).expireZooKeeperSession();
        // The old session's term ends; node 2 comes back (new session) and wins a newer term.
        Await.until(
            () -> {
              try {
                long[] now = terms.current(ZkLayout.rangeId(range)).orElseThrow();
                return now[0] > termBefore
                    && now[1] == 2
                    && cluster.holdersOf(range).equals(List.of(2));
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            },
            MOVE_TIMEOUT,
            "node 2 to lead range " + range + " again in a newer term");
        Await.until(
            () -> registeredInAnotherSession(zk, 2, oldSession),
            MOVE_TIMEOUT,
            "node 2's registration and ready marker in its new session");
        for (int r : naturallyLedBy(ring, 2)) {
          cluster.awaitLeader(r, 2, MOVE_TIMEOUT);
        }
        severe = logged.severe();
        bumpWarnings =
            logged.warningRecords().stream().filter(w -> w.contains("term bump")).toList();
      }
      assertEquals(List.of(), severe, "errors logged across the expiry");
      // A stand-in whose bump was in flight when node 2 became preferred again left the latch, and
      // the bump's entry check refused it: expected, so INFO (it was a WARNING with a stack trace
      // in 5 of 10 runs).
      assertEquals(List.of(), bumpWarnings, "term bumps warned about across the expiry");
      thin.cas(key, thin.get(key).orElseThrow().version(), "1".getBytes(UTF_8));
      try (FrsmClient embedded = cluster.node(2).client()) {
        assertArrayEquals("1".getBytes(UTF_8), embedded.get(key).orElseThrow().value());
      }
    }
  }

  private static boolean registeredInAnotherSession(
      CuratorFramework zk, int nodeId, long oldSession) {
    ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
    try {
      Stat member = zk.checkExists().forPath(layout.member(nodeId));
      Stat ready = zk.checkExists().forPath(layout.ready(nodeId));
      return member != null
          && ready != null
          && member.getEphemeralOwner() != oldSession
          && ready.getEphemeralOwner() == member.getEphemeralOwner();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Integer> naturallyLedBy(Ring ring, int nodeId) {
    List<Integer> out = new ArrayList<>();
    for (int r = 0; r < ring.rangeCount(); r++) {
      if (ring.replicasOfRange(r).get(0) == nodeId) {
        out.add(r);
      }
    }
    return out;
  }

  private static byte[] keyIn(TestCluster cluster, int range) {
    for (int i = 0; ; i++) {
      byte[] key = ("leadership/" + i).getBytes(UTF_8);
      if (cluster.rangeOf(key) == range) {
        return key;
      }
    }
  }
}
