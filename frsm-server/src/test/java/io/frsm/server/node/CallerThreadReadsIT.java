package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On real nodes, a range leader in leader-only mode answers gets of its keys on the caller's thread
 * (CallerThreadReads, docs/PROTOCOL.md "Leader-only reads on the caller's thread"), and every such
 * answer is the newest acknowledged value; a get from a node that does not lead the key's range
 * never takes that path.
 */
class CallerThreadReadsIT {

  @Test
  void theLeadersGets_areServedOnTheCallersThread_withTheNewestValue(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      FrsmNode leader = cluster.node(1);
      byte[] key = keyLedBy(cluster, 1, "caller-reads/");
      try (FrsmClient client = leader.client();
          FrsmClient elsewhere = cluster.node(2).client()) {
        Version v = client.create(key, "v0".getBytes(UTF_8));
        long before = leader.callerThreadReads();
        long otherBefore = cluster.node(2).callerThreadReads();
        for (int i = 1; i <= 20; i++) {
          v = client.cas(key, v, ("v" + i).getBytes(UTF_8));
          Versioned read = client.get(key).orElseThrow();
          assertEquals(v, read.version());
          assertEquals("v" + i, new String(read.value(), UTF_8));
          Versioned forwarded = elsewhere.get(key).orElseThrow();
          assertEquals(v, forwarded.version());
        }
        Version last = v;
        // The key settles once its newest chosen value is visible locally; from then on every
        // get on the leader stays on the caller's thread while the lease holds.
        Await.until(
            () -> {
              Versioned read = client.get(key).orElseThrow();
              assertEquals(last, read.version());
              return leader.callerThreadReads() - before >= 20;
            },
            Duration.ofSeconds(30),
            "20 gets served on the caller's thread");
        assertEquals(
            otherBefore,
            cluster.node(2).callerThreadReads(),
            "node 2 forwards the key's gets: it serves none of them itself");
        assertTrue(
            leader.coreStats().readsLeaderOnly() >= leader.callerThreadReads(),
            "caller-thread reads count as leader-only reads");
      }
    }
  }

  private static byte[] keyLedBy(TestCluster cluster, int nodeId, String prefix) {
    for (int i = 0; ; i++) {
      byte[] key = (prefix + i).getBytes(UTF_8);
      if (cluster.holdersOf(cluster.rangeOf(key)).equals(java.util.List.of(nodeId))) {
        return key;
      }
    }
  }
}
