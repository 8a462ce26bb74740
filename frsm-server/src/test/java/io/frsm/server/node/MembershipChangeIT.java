package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.membership.ChangeSettings;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.membership.MembershipPlan;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A membership change end to end on real nodes under the counter load (docs/PROTOCOL.md "Membership
 * changes", "The server's side"): node 4 of four is decommissioned while hot keys are incremented
 * in ranges it votes in and in others; the node orchestrating the change is killed after the first
 * version, another node's agent resumes it; no acknowledged increment is lost or doubled, and the
 * last version has node 4 in no range and retired.
 */
class MembershipChangeIT {
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void decommission_underLoad_withTheOrchestratorKilled_losesNothing(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 4, 3);
        CuratorFramework zk = RingHistoryIT.connect(cluster)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      ClusterShape shape = ClusterShape.read(zk, layout);
      MembershipOrchestrator admin =
          new MembershipOrchestrator(
              zk, layout, shape, initial, id -> null, ChangeSettings.of(WAIT));

      List<Integer> hot = new ArrayList<>();
      for (int r = 0; r < formed.rangeCount() && hot.size() < 4; r++) {
        if (formed.replicas(r).contains(4)) {
          hot.add(r);
        }
      }
      for (int r = 0; r < formed.rangeCount() && hot.size() < 6; r++) {
        if (!formed.replicas(r).contains(4)) {
          hot.add(r);
        }
      }
      HotKeyLoad load = new HotKeyLoad(cluster, hot);
      load.awaitIncrementsAfter(System.nanoTime(), WAIT, "the load to run");

      // Refusals first: unknown ids, too few nodes left is checked below, concurrent changes.
      assertThrows(
          IllegalArgumentException.class, () -> admin.request(Kind.DECOMMISSION, 9, -1), "unknown");
      admin.request(Kind.DECOMMISSION, 4, -1);
      IllegalStateException second =
          assertThrows(IllegalStateException.class, () -> admin.request(Kind.DECOMMISSION, 3, -1));
      assertTrue(second.getMessage().contains("another membership change is in progress"));

      // Kill the orchestrating node once the first version is out; another node resumes.
      Await.until(
          () -> quietly(() -> history.read(initial, null).size() >= 2),
          WAIT,
          "the first ring version of the change");
      int orchestrator =
          Integer.parseInt(
              new String(
                  zk.getData().forPath(layout.membershipOrchestrator()), StandardCharsets.UTF_8));
      cluster.crash(orchestrator);
      // Another node's agent takes the lock (the killed one's went with its session) and resumes.
      Await.until(
          () ->
              quietly(
                  () -> {
                    byte[] named =
                        zk.checkExists().forPath(layout.membershipOrchestrator()) == null
                            ? null
                            : zk.getData().forPath(layout.membershipOrchestrator());
                    return named != null
                        && Integer.parseInt(new String(named, StandardCharsets.UTF_8))
                            != orchestrator;
                  }),
          WAIT,
          "another node to resume the change after node " + orchestrator + " was killed");
      if (orchestrator == 4) {
        // The leaving node stays down: the change needs it nowhere.
      } else {
        // An incoming node must be up to install its learner version: bring it back.
        cluster.restart(orchestrator);
      }
      Await.until(
          () -> quietly(() -> admin.pending() == null),
          WAIT,
          "the change to finish after node " + orchestrator + " was killed");
      if (orchestrator == 4) {
        // The decommissioned node is retired: it may not come back, even on its own disk.
        IllegalStateException refused =
            assertThrows(IllegalStateException.class, () -> cluster.restart(4));
        assertTrue(refused.getMessage().contains("is retired"), refused.getMessage());
      }
      List<RingVersion> all = history.read(initial, null);
      RingVersion last = all.get(all.size() - 1);
      assertEquals(
          MembershipPlan.between(initial, votersOf(last), Set.of(4), 1).steps(),
          all.subList(1, all.size()),
          "the history is the plan: learners, then a promotion and a drop per batch of one range"
              + " per settling node");
      assertTrue(all.size() >= 4, "at least learners, one promotion, one drop");
      assertEquals(Set.of(4), last.retired());
      assertFalse(last.placement().nodes().contains(4), "node 4 is in no range");
      for (int r = 0; r < formed.rangeCount(); r++) {
        assertEquals(3, last.placement().replicas(r).size(), "RF voters in range " + r);
      }
      Await.until(
          () -> {
            for (int id = 1; id <= 3; id++) {
              if (cluster.node(id).ringVersion() != last.version()) {
                return false;
              }
            }
            return true;
          },
          WAIT,
          "the remaining nodes to run the last version");

      long since = System.nanoTime();
      load.awaitIncrementsAfter(since, WAIT, "increments on every hot key after the change");
      load.close();
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()));
      long acknowledged = load.keys().stream().mapToLong(k -> k.acknowledged.get()).sum();
      assertTrue(acknowledged > 0);

      // Node 4 is retired; decommissioning another would leave fewer than RF = 3 nodes.
      IllegalArgumentException retired =
          assertThrows(
              IllegalArgumentException.class, () -> admin.request(Kind.DECOMMISSION, 4, -1));
      assertTrue(retired.getMessage().contains("retired"), retired.getMessage());
      IllegalArgumentException tooFew =
          assertThrows(
              IllegalArgumentException.class, () -> admin.request(Kind.DECOMMISSION, 1, -1));
      assertTrue(tooFew.getMessage().contains("fewer than the replication factor"));
      assertNull(admin.pending());
    }
  }

  @Test
  void addNode_thenReplaceAWipedNode_underLoad_losesNothing(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, 3);
        CuratorFramework zk = RingHistoryIT.connect(cluster);
        FrsmNode fourth = cluster.nodeBuilder(4, dir.resolve("node-4")).join(true).build()) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      MembershipOrchestrator admin = TestOrchestrator.of(zk, cluster, id -> id == 4, WAIT);
      HotKeyLoad load = new HotKeyLoad(cluster, List.of(0, 1, 2, 3));
      load.awaitIncrementsAfter(System.nanoTime(), WAIT, "the load to run");

      // Keys in every range, so node 4 has something to copy wherever it joins.
      int keyCount = 2_000;
      try (io.frsm.api.FrsmClient client = cluster.node(1).client()) {
        for (int i = 0; i < keyCount; i++) {
          client.create(("copied/" + i).getBytes(StandardCharsets.UTF_8), value(i));
        }
      }

      // 3 -> 4: node 4 starts with join: true, serves nothing, and is added.
      fourth.start();
      fourth.awaitReady(WAIT);
      assertEquals(0, fourth.rangesLed());
      admin.request(Kind.ADD, 4, -1);
      Await.until(() -> quietly(() -> admin.pending() == null), WAIT, "node 4 to be added");
      RingVersion grown = history.newest(initial);
      assertEquals(
          MembershipPlan.between(initial, votersOf(grown), Set.of(), 1).steps(),
          history.read(initial, null).subList(1, (int) grown.version() + 1),
          "the history is the plan of one range per settling node and step");
      assertTrue(grown.placement().nodes().contains(4));
      // Its data came by copy, on node 4 itself: one per range it joined, bytes imported.
      long joined =
          java.util.stream.IntStream.range(0, formed.rangeCount())
              .filter(r -> grown.placement().replicas(r).contains(4))
              .count();
      assertTrue(joined > 0);
      assertEquals(joined, copyMeter(fourth, "done"), "copies node 4 ran");
      assertEquals(0, copyMeter(fourth, "failed"));
      assertTrue(
          fourth.meterRegistry().get("frsm.stream.bytes.received").counter().count() > 0,
          "node 4 received copied bytes");
      assertTrue(
          fourth.meterRegistry().get("frsm.stream.files.received").counter().count() > 0,
          "node 4 imported copied tables");
      // The change's settle and copy requests are gone with it.
      assertEquals(List.of(), childrenOf(zk, layout.ringSettles()), "settle requests left");
      assertEquals(List.of(), childrenOf(zk, layout.ringCopies()), "copy requests left");
      try (io.frsm.api.FrsmClient client = cluster.node(2).client()) {
        for (int i = 0; i < keyCount; i++) {
          assertArrayEquals(
              value(i),
              client.get(("copied/" + i).getBytes(StandardCharsets.UTF_8)).orElseThrow().value(),
              "key copied/" + i);
        }
      }
      Await.until(
          () -> fourth.ringVersion() == grown.version(), WAIT, "node 4 to run the last version");
      // Clients are told the installed voters: node 4 now replicates ranges in their view.
      Await.until(
          () ->
              cluster.node(1).topologyView().ringVersion() == 1 + grown.version()
                  && cluster.node(1).topologyView().ranges().stream()
                      .anyMatch(range -> range.replicas().contains(4)),
          WAIT,
          "node 1's client view to carry the last version with node 4");

      // Node 3's disk is lost: it is killed, its data deleted, and node 5 replaces it.
      cluster.crash(3);
      deleteRecursively(dir.resolve("node-3"));
      try (FrsmNode fifth = cluster.nodeBuilder(5, dir.resolve("node-5")).join(true).build()) {
        fifth.start();
        fifth.awaitReady(WAIT);
        admin.request(Kind.REPLACE, 3, 5);
        Await.until(() -> quietly(() -> admin.pending() == null), WAIT, "node 3 to be replaced");
        RingVersion replaced = history.newest(initial);
        assertEquals(
            MembershipPlan.between(grown, votersOf(replaced), Set.of(3), 0).steps(),
            history
                .read(initial, null)
                .subList((int) grown.version() + 1, (int) replaced.version() + 1),
            "the replace's history is its plan, every range in one step");
        assertEquals(Set.of(3), replaced.retired());
        assertFalse(replaced.placement().nodes().contains(3));
        for (int r = 0; r < formed.rangeCount(); r++) {
          List<Integer> expected = new ArrayList<>(grown.placement().replicas(r));
          expected.replaceAll(n -> n == 3 ? 5 : n);
          assertEquals(expected, replaced.placement().replicas(r), "range " + r);
        }

        long since = System.nanoTime();
        load.awaitIncrementsAfter(since, WAIT, "increments on every hot key after the changes");
        load.close();
        assertEquals(List.of(), load.counterViolations(cluster.thinClient()));

        // The wiped id never comes back.
        IllegalStateException refused =
            assertThrows(IllegalStateException.class, () -> cluster.restart(3));
        assertTrue(refused.getMessage().contains("is retired"), refused.getMessage());
      }
    }
  }

  private static byte[] value(int i) {
    return ("value-" + i).getBytes(StandardCharsets.UTF_8);
  }

  static double copyMeter(FrsmNode node, String event) {
    return node.meterRegistry()
        .get("frsm.membership.copy")
        .tag("event", event)
        .functionCounter()
        .count();
  }

  static List<String> childrenOf(CuratorFramework zk, String path) throws Exception {
    return zk.checkExists().forPath(path) == null ? List.of() : zk.getChildren().forPath(path);
  }

  private static void deleteRecursively(Path root) throws java.io.IOException {
    try (var paths = java.nio.file.Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.delete(p);
      }
    }
  }

  private static boolean quietly(java.util.concurrent.Callable<Boolean> condition) {
    try {
      return condition.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Each range's voters at {@code v}, in order. */
  static List<List<Integer>> votersOf(RingVersion v) {
    List<List<Integer>> voters = new ArrayList<>();
    for (int r = 0; r < v.placement().rangeCount(); r++) {
      voters.add(v.placement().replicas(r));
    }
    return voters;
  }
}
