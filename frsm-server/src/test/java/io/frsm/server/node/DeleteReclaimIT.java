package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Deletes that finish (docs/PROTOCOL.md "Delete phase 2 (purge)", docs/OPERATIONS.md "Deletes and
 * space"): a deleted key leaves every replica's memtables and tables by itself within the grace
 * period plus a purge compaction, though the first purges to the other replicas were lost on the
 * way and a replica restarted after it was marked — no flush, compaction or restart by hand. The
 * grace period and the intervals are seconds here, hours in production.
 */
class DeleteReclaimIT {
  private static final Duration GRACE = Duration.ofSeconds(1);
  private static final Duration PURGE_INTERVAL = Duration.ofMillis(500);
  private static final Duration MEMTABLE_LIFETIME = Duration.ofSeconds(1);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aDeletedKeysSpace_isReclaimedOnEveryReplica_thoughPurgesWereLostAndAReplicaRestarted(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster =
        TestCluster.withFaults(
            dir,
            builder ->
                builder.lsm(
                    lsm ->
                        lsm.tombstoneGracePeriod(GRACE)
                            .tombstoneCompactionInterval(PURGE_INTERVAL)
                            .memtableLifetime(MEMTABLE_LIFETIME)
                            // No minor compaction in the test's time: only purge compactions drop.
                            .minorCompactionMinTables(1000)
                            .minorCompactionMaxTables(1000)))) {
      byte[] bytes = "reclaimed".getBytes(UTF_8);
      Key key = Key.of(bytes);
      List<Integer> replicas = cluster.ring().replicasOfRange(cluster.rangeOf(bytes));
      int leader = replicas.get(0);
      AtomicInteger purgesSent = new AtomicInteger();
      int lost = replicas.size() - 1;
      // The leader's first purge to each other replica is lost; only resends can reach them.
      cluster
          .linkFaults(leader)
          .dropSent(
              m ->
                  m instanceof Message.Purge p
                      && p.key().equals(key)
                      && purgesSent.getAndIncrement() < lost);

      FrsmClient client = cluster.thinClient();
      Version created = client.create(bytes, "v".getBytes(UTF_8));
      client.delete(bytes, created);
      Await.until(
          () -> replicas.stream().allMatch(id -> purgeMarked(cluster.node(id), key)),
          TIMEOUT,
          "every replica to carry the purge mark (purges sent: " + purgesSent.get() + ")");
      assertTrue(purgesSent.get() > lost, "no purge was sent again");
      long markedAt = System.nanoTime();

      int restarted = replicas.get(1);
      cluster.crash(restarted); // its schedule of purge compactions is lost with it
      cluster.restart(restarted);

      try {
        Await.until(
            () -> replicas.stream().allMatch(id -> gone(cluster.node(id), key)),
            TIMEOUT,
            "the key to leave every replica's memtables and tables");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + ": " + where(cluster, replicas, key), e);
      }
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - markedAt);
      for (int id : replicas) {
        double purged =
            cluster.node(id).meterRegistry().get("frsm.lsm.tombstones.purged").counter().count();
        assertTrue(purged >= 1, "node " + id + " dropped no key");
      }
      assertEquals(java.util.Optional.empty(), client.get(bytes));

      // What frsm admin compact calls: everything into one table, now.
      FrsmNode compacted = cluster.node(leader);
      compacted.compact().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      assertTrue(compacted.engine().tables().size() <= 1, "tables " + compacted.engine().tables());
      assertEquals(
          1.0,
          compacted
              .meterRegistry()
              .get("frsm.lsm.compaction.forced")
              .tag("by", "operator")
              .functionCounter()
              .count());
      System.out.printf(
          "delete reclaim: the first %d of %d purges lost, replica %d restarted; the key left every replica's"
              + " tables %d ms after the last mark (grace %d ms, purge interval %d ms, memtable"
              + " lifetime %d ms)%n",
          lost,
          purgesSent.get(),
          restarted,
          tookMs,
          GRACE.toMillis(),
          PURGE_INTERVAL.toMillis(),
          MEMTABLE_LIFETIME.toMillis());
    }
  }

  /** Per replica: its cell of the key, its tables and the purge compactions it started. */
  private static String where(TestCluster cluster, List<Integer> replicas, Key key) {
    StringBuilder out = new StringBuilder();
    for (int id : replicas) {
      FrsmNode node = cluster.node(id);
      try {
        out.append("node ")
            .append(id)
            .append(": ")
            .append(node.engine().get(key))
            .append(", tables ")
            .append(node.engine().tables().size())
            .append(", purge compactions ")
            .append(
                node.meterRegistry()
                    .get("frsm.lsm.compaction.purge.started")
                    .functionCounter()
                    .count())
            .append("; ");
      } catch (java.io.IOException e) {
        out.append("node ").append(id).append(": ").append(e).append("; ");
      }
    }
    return out.toString();
  }

  private static boolean purgeMarked(FrsmNode node, Key key) {
    try {
      Cell cell = node.engine().get(key);
      return cell != null && cell.purge() != null;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static boolean gone(FrsmNode node, Key key) {
    try {
      return node.engine().get(key) == null;
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
