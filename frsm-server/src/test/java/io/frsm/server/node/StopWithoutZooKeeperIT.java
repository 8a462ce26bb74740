package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node asked to stop while ZooKeeper is out of reach still stops: its ZooKeeper chores on the way
 * out (release marks, deregistration) are best effort and bounded, since its session's end removes
 * what they would. (Seen from outside: nodes stopped after their ZooKeeper did not exit within 15 s
 * of SIGTERM, and a supervisor killed them.)
 */
class StopWithoutZooKeeperIT {
  /** A hang detector, far above a healthy stop: not a speed figure. */
  private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);

  @Test
  void aNodeCutFromZooKeeper_stopsGracefully_withinItsDeadline(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withFaults(dir)) {
      cluster.awaitNaturalLeaders();
      assertTrue(cluster.node(1).rangesLed() > 0, "node 1 leads ranges to hand over");
      ZooKeeperProxy proxy = cluster.zooKeeperProxy(1);
      proxy.blackhole();

      long start = System.nanoTime();
      cluster.node(1).close();
      long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
      System.out.printf("stop without ZooKeeper took %d ms%n", tookMillis);
      assertTrue(
          tookMillis < STOP_DEADLINE.toMillis(),
          "node 1 stopped in " + tookMillis + " ms without ZooKeeper");
    }
  }
}
