package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A range leader cut off from ZooKeeper only (its proxy holds every byte; its peers and clients
 * reach it). A cut shorter than the lease changes nothing. A cut longer than the session timeout
 * expires its session while it is SUSPENDED: it notices (LOST), ends its leases and holds no range,
 * the other replicas take its ranges after the lease wait, and after the heal it registers again
 * and takes them back — no acknowledged increment lost or doubled.
 */
class ZooKeeperCutIT {
  private static final Duration SHORT_CUT = Duration.ofSeconds(1);
  private static final Duration LONG_CUT = Duration.ofSeconds(8);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void leaderCutOffFromZooKeeper_shortCutChangesNothing_longCutMovesItsRangesAndBack(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withFaults(dir)) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (ring.replicasOfRange(r).get(0) == 1) {
          ledBy1.add(r);
        }
      }
      HotKeyLoad load = new HotKeyLoad(cluster, ledBy1.subList(0, 4));
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");
      ZooKeeperProxy proxy = cluster.zooKeeperProxy(1);

      long shortAt = System.nanoTime();
      proxy.blackhole();
      LockSupport.parkNanos(SHORT_CUT.toNanos()); // the cut's length
      proxy.restore();
      long errorsAfterShortCut = load.errorCount();
      for (int r : ledBy1) {
        assertEquals(List.of(1), cluster.holdersOf(r), "range " + r + " after a short cut");
      }

      long longAt = System.nanoTime();
      proxy.blackhole();
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
      }
      long movedNanos = System.nanoTime() - longAt;
      assertEquals(0, cluster.node(1).rangesLed(), "node 1 noticed its session ended");
      LockSupport.parkNanos(longAt + LONG_CUT.toNanos() - System.nanoTime());
      long healAt = System.nanoTime();
      proxy.restore();
      cluster.awaitNaturalLeaders();
      long backNanos = System.nanoTime() - healAt;
      long backAt = System.nanoTime();
      load.awaitIncrementsAfter(
          backAt, TIMEOUT, "increments on every hot key after node 1 took its ranges back");
      long endAt = System.nanoTime();
      load.close();

      long shortGap = 0;
      long longGap = 0;
      for (HotKeyLoad.HotKey k : load.keys()) {
        shortGap = Math.max(shortGap, HotKeyLoad.longestGapNanos(k, shortAt, longAt));
        longGap = Math.max(longGap, HotKeyLoad.longestGapNanos(k, longAt, endAt));
      }
      System.out.printf(
          "zookeeper cut of a leader: %d ms cut: longest gap %d ms, %d client errors; %d ms cut:"
              + " ranges moved %d ms after the cut, longest gap %d ms, back %d ms after the heal;"
              + " client errors in all %d%n",
          SHORT_CUT.toMillis(),
          TimeUnit.NANOSECONDS.toMillis(shortGap),
          errorsAfterShortCut,
          LONG_CUT.toMillis(),
          TimeUnit.NANOSECONDS.toMillis(movedNanos),
          TimeUnit.NANOSECONDS.toMillis(longGap),
          TimeUnit.NANOSECONDS.toMillis(backNanos),
          load.errorCount());
      assertEquals(0, errorsAfterShortCut, "client errors during a cut shorter than the lease");
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()), "counter check");
    }
  }
}
