package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Healthy clusters log no error: many three-node formations, each with a graceful restart of one
 * node, on an embedded ZooKeeper, and not one SEVERE record from Curator, ZooKeeper or frsm.
 *
 * <p>Regression: while a cluster forms, nodes become ready one after the other, and a node joins a
 * range's latch as a stand-in and leaves it again within a ZooKeeper round trip. Curator's
 * LeaderLatch, closed while a read of its own was in flight (its check after joining, or after the
 * entry before it went), logged SEVERE "failed to find our node; resetting": 15 records in 25
 * formations. Ranges now compete through {@code io.frsm.server.zk.RangeLatch}, whose leave is final
 * whatever is in flight.
 *
 * <p>{@code -Dfrsm.quietFormations=N} runs N formations (default 20).
 */
class QuietFormationIT {
  private static final int FORMATIONS = Integer.getInteger("frsm.quietFormations", 20);

  @Test
  void formationsAndRestarts_logNoSevereRecord(@TempDir Path dir) throws Exception {
    List<String> severe;
    int warnings;
    try (LoggedProblems logged = LoggedProblems.capture(LoggedProblems.LIBRARIES_AND_FRSM)) {
      for (int i = 0; i < FORMATIONS; i++) {
        try (TestCluster cluster = new TestCluster(dir.resolve("cluster-" + i))) {
          // The node leaves its latches, its stand-ins join theirs, and it takes its ranges back
          // once ready: the churn of a formation again, one node at a time.
          int node = 1 + i % cluster.size();
          cluster.node(node).close();
          cluster.restart(node);
          cluster.awaitNaturalLeaders();
        }
      }
      severe = logged.severe();
      warnings = logged.warnings();
    }
    System.out.printf(
        "%d formations and restarts: %d SEVERE and %d WARNING records%n",
        FORMATIONS, severe.size(), warnings);
    assertEquals(List.of(), severe, "SEVERE records in " + FORMATIONS + " healthy formations");
  }
}
