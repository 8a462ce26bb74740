package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.consensus.core.Placement;
import io.frsm.server.membership.MembershipChange;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.membership.MembershipPlan;
import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The edges of a membership change's new parts (docs/PROTOCOL.md "Membership changes", "Copy" and
 * "Cancel"): forged copy requests are refused by the node they name, which keeps serving; a change
 * whose incoming node died, which would block every later change, is cancelled, and the next change
 * runs to its end.
 */
class MembershipCancelIT {
  private static final Duration WAIT = Duration.ofSeconds(120);

  @Test
  void forgedCopyRequests_areRefused_theNodeKeepsServing(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, 3);
        CuratorFramework zk = RingHistoryIT.connect(cluster)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      FrsmNode one = cluster.node(1);
      // Every node's sweep of leftovers at its start would remove them: forge after those.
      Await.until(
          () ->
              java.util.stream.IntStream.rangeClosed(1, 3)
                  .allMatch(id -> cluster.node(id).membershipAgent().swept()),
          WAIT,
          "every node's sweep of leftovers");
      // A checksum that does not match; another copy's record under this name; version 0, which no
      // change publishes (no learner in it); and a name that is not a request's.
      zk.create().creatingParentsIfNeeded().forPath(layout.ringCopy(0, 1, 0), new byte[] {1, 2, 3});
      byte[] other = RangeCopyRequests.encode(RangeCopyRequests.Request.open(0, 1, 9));
      zk.create().forPath(layout.ringCopy(0, 1, 1), other);
      zk.create()
          .forPath(
              layout.ringCopy(0, 1, 2),
              RangeCopyRequests.encode(RangeCopyRequests.Request.open(0, 1, 2)));
      zk.create().forPath(layout.ringCopies() + "/junk", new byte[0]);

      Await.until(() -> MembershipChangeIT.copyMeter(one, "refused") == 3, WAIT, "three refusals");
      assertEquals(0, MembershipChangeIT.copyMeter(one, "done"));
      assertEquals(0, MembershipChangeIT.copyMeter(one, "failed"));
      assertEquals(0.0, one.meterRegistry().get("frsm.stream.copies.completed").counter().count());
      // Left as they were: the node writes nothing into a request it refused.
      assertArrayEquals(other, zk.getData().forPath(layout.ringCopy(0, 1, 1)));
      try (FrsmClient client = one.client()) {
        client.create("after-forgery".getBytes(UTF_8), "served".getBytes(UTF_8));
        assertArrayEquals(
            "served".getBytes(UTF_8),
            client.get("after-forgery".getBytes(UTF_8)).orElseThrow().value());
      }
    }
  }

  @Test
  void anAddWhoseNodeDied_isCancelled_andTheNextChangeRuns(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir, 3, 3);
        CuratorFramework zk = RingHistoryIT.connect(cluster);
        FrsmNode fourth = cluster.nodeBuilder(4, dir.resolve("node-4")).join(true).build();
        FrsmNode fifth = cluster.nodeBuilder(5, dir.resolve("node-5")).join(true).build()) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      MembershipOrchestrator admin = TestOrchestrator.of(zk, cluster, id -> id >= 4, WAIT);
      IllegalStateException none = assertThrows(IllegalStateException.class, admin::cancel);
      assertTrue(none.getMessage().contains("nothing to cancel"), none.getMessage());

      // Node 4 registers, then dies for good: its add can never install its learner version.
      fourth.start();
      fourth.awaitReady(WAIT);
      fourth.kill();
      MembershipChange stuck = admin.request(Kind.ADD, 4, -1);
      Await.until(
          () -> quietly(() -> zk.checkExists().forPath(layout.membershipOrchestrator()) != null),
          WAIT,
          "a node to orchestrate the add");
      IllegalStateException blocked =
          assertThrows(IllegalStateException.class, () -> admin.request(Kind.ADD, 5, -1));
      assertTrue(blocked.getMessage().contains("another membership change is in progress"));

      assertEquals(stuck, admin.cancel());
      Await.until(
          () -> quietly(() -> admin.pending() == null), WAIT, "the add of node 4 to be cancelled");
      assertNull(zk.checkExists().forPath(layout.membershipCancel()), "the cancel is consumed");
      RingVersion after = history.newest(initial);
      assertTrue(
          after.version() == 0 || after.version() == 2,
          "nothing published, or the learner version and its reverse: " + after.version());
      assertFalse(after.placement().nodes().contains(4), "node 4 is in no range");
      for (int r = 0; r < formed.rangeCount(); r++) {
        assertEquals(formed.replicas(r), after.placement().replicas(r), "range " + r);
        assertEquals(List.of(), after.placement().learners(r), "range " + r);
      }
      assertEquals(List.of(), MembershipChangeIT.childrenOf(zk, layout.ringCopies()));
      assertEquals(List.of(), MembershipChangeIT.childrenOf(zk, layout.ringSettles()));

      // The next change is no longer blocked and runs to its end.
      fifth.start();
      fifth.awaitReady(WAIT);
      admin.request(Kind.ADD, 5, -1);
      Await.until(() -> quietly(() -> admin.pending() == null), WAIT, "node 5 to be added");
      RingVersion grown = history.newest(initial);
      assertEquals(
          MembershipPlan.between(after, MembershipChangeIT.votersOf(grown), Set.of(), 1).steps(),
          history.read(initial, null).subList((int) after.version() + 1, (int) grown.version() + 1),
          "the add's history is its plan of one range per settling node and step");
      assertTrue(grown.placement().nodes().contains(5));
      assertTrue(MembershipChangeIT.copyMeter(fifth, "done") > 0, "node 5's data came by copy");
    }
  }

  private static boolean quietly(java.util.concurrent.Callable<Boolean> condition) {
    try {
      return condition.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
