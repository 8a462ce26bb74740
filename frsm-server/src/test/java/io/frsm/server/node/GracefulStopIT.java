package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.Token;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ZkLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A graceful stop ({@link FrsmNode#close()}) under load: operations the node admitted finish (none
 * ends with an unknown outcome), later ones are refused as not executed, the node's registration is
 * gone when close returns, and its memtables were flushed (its engine reopens with nothing to
 * replay and every acknowledged write in its tables).
 */
class GracefulStopIT {
  private static final int WRITES = 400;

  /** The start of the core's answer when an operation's bounded delay ran out (not the stop's). */
  private static final String BOUNDED_DELAY_EXPIRED = "bounded delay T expired";

  @Test
  void gracefulStop_drainsAdmittedOperations_deregisters_andFlushes(@TempDir Path dir)
      throws Exception {
    // A drain long enough for the 400 creates on a loaded machine: the test is about what a drain
    // that finishes guarantees (with the test clusters' 5 s, a load of ~15 once left some running,
    // which then end with an unknown outcome, as a drain that times out must).
    try (TestCluster cluster =
            TestCluster.withTweaks(dir, b -> b.drainTimeout(Duration.ofSeconds(60)));
        CuratorFramework zk = cluster.zooKeeperClient()) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      FrsmNode node1 = cluster.node(1);
      LsmConfig lsm = node1.engine().config();
      List<byte[]> keys = keysLedBy(cluster.ring(), 1, WRITES);

      // Creates through node 1's embedded client: node 1 leads their ranges and coordinates them.
      List<CompletableFuture<Version>> writes = new ArrayList<>();
      try (FrsmClient embedded = node1.client()) {
        for (byte[] key : keys) {
          writes.add(embedded.createAsync(key, key));
        }
        node1.close();
      }

      List<byte[]> acknowledged = new ArrayList<>();
      int refused = 0;
      int expired = 0;
      for (int i = 0; i < keys.size(); i++) {
        try {
          writes.get(i).get(30, TimeUnit.SECONDS);
          acknowledged.add(keys.get(i));
        } catch (ExecutionException e) {
          // Drained means: the stop makes no outcome unknown; what was not admitted is refused
          // cleanly. A create whose bounded delay T ran out before it was chosen is unknown by the
          // protocol, stop or not: 400 at once on a loaded machine (load ~27) took longer than T.
          if (e.getCause() instanceof OutcomeUnknownException u
              && u.getMessage().contains(BOUNDED_DELAY_EXPIRED)) {
            expired++;
            continue;
          }
          assertInstanceOf(
              NotExecutedException.class, e.getCause(), "write " + i + ": " + e.getCause());
          refused++;
        }
      }
      assertTrue(!acknowledged.isEmpty(), "some writes were admitted before the stop");
      assertEquals(keys.size(), acknowledged.size() + refused + expired);

      assertNull(zk.checkExists().forPath(layout.member(1)), "node 1 still registered");
      assertNull(zk.checkExists().forPath(layout.ready(1)), "node 1 still marked ready");

      try (LsmEngine reopened =
          LsmEngine.open(lsm, NioFileSystem.INSTANCE, new SimpleMeterRegistry())) {
        assertEquals(0, reopened.memtableBytes(), "the reopened engine replayed commit-log data");
        for (byte[] key : acknowledged) {
          Cell cell = reopened.get(Key.of(key));
          assertNotNull(cell, "acknowledged key " + new String(key, UTF_8) + " not in the tables");
          assertNotNull(cell.accepted(), "no accepted value for " + new String(key, UTF_8));
        }
      }

      // The other replicas serve every acknowledged write while node 1 is away.
      FrsmClient thin = cluster.thinClient();
      for (byte[] key : acknowledged) {
        assertArrayEquals(key, thin.get(key).orElseThrow().value());
      }
      System.out.printf(
          "graceful stop: %d of %d writes acknowledged, %d refused as not executed, %d past T%n",
          acknowledged.size(), keys.size(), refused, expired);
    }
  }

  private static List<byte[]> keysLedBy(Ring ring, int nodeId, int count) {
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      byte[] key = ("graceful/" + i).getBytes(UTF_8);
      int range = ring.rangeIndexOf(Token.of(key));
      if (ring.replicasOfRange(range).get(0) == nodeId) {
        keys.add(key);
      }
    }
    return keys;
  }
}
