package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing the cluster's timing into a stored shape ({@link ClusterShape#publishTimingIfAbsent})
 * against a real ZooKeeper: a shape written before v3 gets the first publisher's timing, and later
 * publishers (a node racing it, or one configured otherwise) find that one instead of their own. (A
 * client hears the timing from the nodes' topology, which carries it once the cluster formed; until
 * then it uses the nodes' defaults: {@code SeedClientSettleTest} in frsm-client.)
 */
class ClusterShapeTimingIT {
  private static final ZkLayout LAYOUT = new ZkLayout("timing-it");
  private static final ClusterTiming FIRST =
      new ClusterTiming(Duration.ofSeconds(6), Duration.ofMillis(100));
  private static final ClusterTiming OTHER =
      new ClusterTiming(Duration.ofSeconds(9), Duration.ofMillis(300));

  @Test
  void aShapeWithoutTiming_getsTheFirstPublishersTiming_andKeepsIt(@TempDir Path dir)
      throws Exception {
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk = connected(zookeeper)) {
      assertNull(ClusterShape.publishTimingIfAbsent(zk, LAYOUT, FIRST), "not formed: nothing");

      // As the previous version left it.
      storeV2Shape(zk);
      assertNull(ClusterShape.read(zk, LAYOUT).timing());

      ClusterShape published = ClusterShape.publishTimingIfAbsent(zk, LAYOUT, FIRST);
      assertEquals(FIRST, published.timing());
      assertEquals(List.of(1, 2, 3), published.nodeIds(), "nothing else of the shape changes");
      assertEquals(
          "v3|16|3|6000000|100000|1:a,2:b,3:c",
          new String(zk.getData().forPath(LAYOUT.shape()), UTF_8));

      ClusterShape later = ClusterShape.publishTimingIfAbsent(zk, LAYOUT, OTHER);
      assertEquals(FIRST, later.timing(), "the first publisher's timing holds");
      assertEquals(published, ClusterShape.read(zk, LAYOUT));
    }
  }

  @Test
  void racingPublishers_allEndWithOneTiming(@TempDir Path dir) throws Exception {
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir);
        CuratorFramework zk = connected(zookeeper)) {
      storeV2Shape(zk);
      List<ClusterTiming> candidates =
          List.of(
              FIRST,
              OTHER,
              new ClusterTiming(Duration.ofSeconds(2), Duration.ZERO),
              new ClusterTiming(Duration.ofSeconds(3), Duration.ofMillis(1)));
      List<ClusterTiming> seen =
          candidates.parallelStream()
              .map(
                  t -> {
                    try {
                      return ClusterShape.publishTimingIfAbsent(zk, LAYOUT, t).timing();
                    } catch (Exception e) {
                      throw new IllegalStateException(e);
                    }
                  })
              .toList();
      ClusterTiming stored = ClusterShape.read(zk, LAYOUT).timing();
      assertTrue(candidates.contains(stored), "one of the publishers' timings: " + stored);
      for (ClusterTiming t : seen) {
        assertEquals(stored, t, "every publisher ends with the stored timing");
      }
    }
  }

  private static CuratorFramework connected(EmbeddedZooKeeper zookeeper)
      throws InterruptedException {
    CuratorFramework zk =
        CuratorFrameworkFactory.newClient(
            zookeeper.connectString(), new ExponentialBackoffRetry(100, 5));
    zk.start();
    assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
    return zk;
  }

  /** The shape as the previous version (v2, no timing) left it: nodes 1-3 on racks a-c. */
  static void storeV2Shape(CuratorFramework zk) throws Exception {
    zk.create()
        .creatingParentContainersIfNeeded()
        .forPath(LAYOUT.shape(), "v2|16|3|1:a,2:b,3:c".getBytes(UTF_8));
  }
}
