package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A ZooKeeper restart shorter than the session timeout is not an outage (docs/PROTOCOL.md "Leases
 * backed by the session"): SUSPENDED pauses lease renewals, the holders keep their latches and
 * terms, the session carries each lease on (credited renewals) and renewals resume on RECONNECTED,
 * so no client sees an error, no hot key waits, and no range changes hands — also for a restart
 * longer than the lease {@code L}, which without the session's credit would leave every lease run
 * out.
 *
 * <p>Before: every SUSPENDED connection ended the node's leases at once, every range took a new
 * term and a lease wait, and clients saw {@code NotExecuted} for seconds (issue 27: 8.5 s without
 * an answer on a hot key for a 3 s restart); then, with SUSPENDED only pausing renewals, a 1–1.5 s
 * restart still left gaps of up to ~2 s (the client's reconnect sleeps up to 1 s after the lease
 * had run out).
 */
class ZooKeeperRestartIT {
  /** The case: shorter than L = 2 s. */
  private static final Duration SHORT_OUTAGE = Duration.ofMillis(1_500);

  /** Longer than L = 2 s, inside the session's credit (10 s / 3) + L. */
  private static final Duration LONG_OUTAGE = Duration.ofMillis(2_500);

  /**
   * DESIGN.md's L, set here because the outages above are sized against it (the node's default is
   * 1.5 s, which would put the short outage at the lease itself).
   */
  private static final Duration LEASE = Duration.ofSeconds(2);

  /** zookeeper.sessionTimeout's default. */
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A hot key may wait this long at most: the leases never lapse, so the restart costs nothing but
   * noise (16–232 ms measured, once 687 ms at load average 35; 2.1 s for the 2.5 s restart without
   * the session's credit, which this bound still catches).
   */
  private static final Duration GAP_BOUND = Duration.ofMillis(1_200);

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void zooKeeperRestartShorterThanTheLease_noClientError_noGap_noRangeChangesHands(
      @TempDir Path dir) throws Exception {
    restartUnderLoad(dir, SHORT_OUTAGE);
  }

  @Test
  void zooKeeperRestartLongerThanTheLease_theSessionCarriesTheLeases(@TempDir Path dir)
      throws Exception {
    restartUnderLoad(dir, LONG_OUTAGE);
  }

  private static void restartUnderLoad(Path dir, Duration outage) throws Exception {
    // The default session timeout (TestCluster's 3 s is shorter than a restart plus the client's
    // reconnect, so Curator would declare sessions LOST: that is the long outage, not this one).
    try (TestCluster cluster =
        TestCluster.withTweaks(dir, b -> b.zookeeperSessionTimeout(SESSION_TIMEOUT).lease(LEASE))) {
      Ring ring = cluster.ring();
      // Two hot ranges of each natural leader.
      List<Integer> hot = new ArrayList<>();
      for (int node = 1; node <= cluster.size(); node++) {
        int found = 0;
        for (int r = 0; r < ring.rangeCount() && found < 2; r++) {
          if (ring.replicasOfRange(r).get(0) == node) {
            hot.add(r);
            found++;
          }
        }
      }
      HotKeyLoad load = new HotKeyLoad(cluster, hot);
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");
      long[] renewalsBefore = new long[cluster.size()];
      for (int n = 1; n <= cluster.size(); n++) {
        renewalsBefore[n - 1] = renewals(cluster.node(n));
      }

      // Issue 27 point 4: a recovering cluster logs nothing SEVERE, and a WARNING only from the
      // ZooKeeper client losing its connection (the restart's own, expected symptom).
      LoggedProblems logged = LoggedProblems.capture(LoggedProblems.LIBRARIES_AND_FRSM);
      long downAt = System.nanoTime();
      long upAt;
      long renewedAt;
      try {
        cluster.restartZooKeeper(outage);
        upAt = System.nanoTime();
        // Renewals resumed on every node: each renewed again after the restart.
        for (int n = 1; n <= cluster.size(); n++) {
          FrsmNode node = cluster.node(n);
          long before = renewals(node);
          Await.until(() -> renewals(node) > before, TIMEOUT, "node " + n + " to renew again");
        }
        renewedAt = System.nanoTime();
      } finally {
        logged.close();
      }
      System.out.printf(
          "logged across the restart: %d SEVERE, %d WARNING: %s%n",
          logged.severe().size(), logged.warnings(), logged.warningRecords());
      Await.until(
          () ->
              load.keys().stream()
                  .allMatch(
                      k ->
                          k.writesAcknowledged.stream()
                              .anyMatch(t -> t - renewedAt > 500_000_000L)),
          TIMEOUT,
          "increments on every hot key after the restart");
      long endAt = System.nanoTime();
      load.close();

      long longest = 0;
      long longestWrite = 0;
      for (HotKeyLoad.HotKey k : load.keys()) {
        longest = Math.max(longest, HotKeyLoad.longestGapNanos(k, downAt, endAt));
        longestWrite = Math.max(longestWrite, HotKeyLoad.longestWriteGapNanos(k, downAt, endAt));
      }
      System.out.printf(
          "zookeeper restart of %d ms: down %d ms; every node renewed again %d ms after it was back;"
              + " longest gap without an answer on a hot key %d ms, without an acknowledged"
              + " increment %d ms; client errors %d%n",
          outage.toMillis(),
          TimeUnit.NANOSECONDS.toMillis(upAt - downAt),
          TimeUnit.NANOSECONDS.toMillis(renewedAt - upAt),
          TimeUnit.NANOSECONDS.toMillis(longest),
          TimeUnit.NANOSECONDS.toMillis(longestWrite),
          load.errorCount());
      assertEquals(List.of(), load.errors(), "client-visible errors");
      // Operations wait in the cores for a lease that lapsed, up to T, so no error is no proof:
      // the leases held through the restart (SUSPENDED once ended them: a 3.8 s gap; pausing
      // renewals only, ~2 s for a 1.5 s restart).
      assertTrue(
          longest < GAP_BOUND.toNanos(),
          "a hot key went " + TimeUnit.NANOSECONDS.toMillis(longest) + " ms without an answer");
      long kept = 0;
      for (int n = 1; n <= cluster.size(); n++) {
        kept +=
            (long)
                cluster
                    .node(n)
                    .meterRegistry()
                    .get("frsm.lease.kept_through_suspension")
                    .functionCounter()
                    .count();
      }
      System.out.printf("leases the sessions carried through the restart: %d%n", kept);
      // Every range's lease was held by its natural leader through the restart, and each was
      // credited at once on SUSPENDED, so each counts (a node suspended twice counts twice).
      assertTrue(
          kept >= ring.rangeCount(),
          "the sessions carried all " + ring.rangeCount() + " leases through: " + kept);
      for (int n = 1; n <= cluster.size(); n++) {
        double longestSuspension =
            cluster.node(n).meterRegistry().get("frsm.lease.longest_suspension").gauge().value();
        System.out.printf("node %d: longest suspension %.3f s%n", n, longestSuspension);
        // SUSPENDED came when ZooKeeper closed the connection, RECONNECTED after it was back
        // (at least the outage later) and before the node's next renewal.
        assertTrue(
            longestSuspension * 1e9 >= outage.toNanos() / 2.0
                && longestSuspension * 1e9 <= renewedAt - downAt,
            "node "
                + n
                + ": longest suspension "
                + longestSuspension
                + " s, ZooKeeper down "
                + outage.toMillis()
                + " ms, renewing again "
                + TimeUnit.NANOSECONDS.toMillis(renewedAt - downAt)
                + " ms after it went");
      }
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()), "counter check");
      assertEquals(List.of(), logged.severe(), "SEVERE records across the restart");
      assertEquals(
          List.of(),
          logged.warningRecords().stream().filter(w -> !expectedWarning(w)).toList(),
          "unexpected WARNING records across the restart");
      for (int r = 0; r < ring.rangeCount(); r++) {
        assertEquals(
            List.of(ring.replicasOfRange(r).get(0)),
            cluster.holdersOf(r),
            "range " + r + " kept its leader");
      }
      for (int n = 1; n <= cluster.size(); n++) {
        assertTrue(renewals(cluster.node(n)) > renewalsBefore[n - 1]);
      }
    }
  }

  /**
   * A WARNING a ZooKeeper restart must cause: the ZooKeeper client (a node's, or the cluster's)
   * notes that its connection went ("Session 0x… for server …, Closing socket connection.
   * Attempting reconnect …"); the restarted embedded server (in this JVM, not in a node) notes at
   * its start that no connection limit is set, and that a connection closed without a session or
   * before its session was re-established (its start-up probe, a client dialling while it starts).
   */
  private static boolean expectedWarning(String record) {
    return record.startsWith("org.apache.zookeeper.ClientCnxn: ")
        || record.startsWith(
            "org.apache.zookeeper.server.ServerCnxnFactory: maxCnxns is not configured")
        || record.startsWith("org.apache.zookeeper.server.NIOServerCnxn: Close of session 0x");
  }

  private static long renewals(FrsmNode node) {
    return (long) node.meterRegistry().get("frsm.lease.renewals").functionCounter().count();
  }
}
