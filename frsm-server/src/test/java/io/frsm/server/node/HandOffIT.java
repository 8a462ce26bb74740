package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.HandBackCounts;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hand-off instead of a scan on real nodes (docs/PROTOCOL.md "Hand-off instead of a scan"): node 1,
 * the natural leader of its ranges, gives them up through the step-down path without restarting
 * (the test reports their quorums lost, as the quorum watch would on a flapping link, while the
 * peers stay reachable, so its drain can settle), the stand-ins serve them under a counter load,
 * and when node 1 competes again each stand-in drains, ships to node 1 and releases: node 1 enters
 * leader-only mode by importing the shipments, not by scanning. With {@code consensus.handOff} off
 * the same return scans. Both under load, no acknowledged increment lost or doubled.
 */
class HandOffIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void handBack_withTheFlagOn_theReturningLeaderImports_insteadOfScanning(@TempDir Path dir)
      throws Exception {
    Result r = run(dir, true, 0);
    // Each range comes back once. One whose hand-back fell back (on a loaded machine a drain can
    // give up after its lease, or a shipment go unacknowledged: each counted) is scanned; every
    // other one is imported, and at least one must be, or the test showed nothing.
    assertEquals(r.ranges, r.imported + r.newScans, "each range entered once, by import or scan");
    assertTrue(
        r.newScans <= r.fallbacks,
        r.newScans + " ranges scanned, " + r.fallbacks + " hand-backs fell back: " + r.standIns);
    assertTrue(r.imported > 0, "no range entered by import: " + r.standIns);
    assertTrue(r.standIns.shipped() >= r.imported, "imports without shipments: " + r.standIns);
  }

  /**
   * The durable base (docs/PROTOCOL.md "The durable base"): node 1 gives its ranges up, stops
   * gracefully and starts again on its directories while the stand-ins serve them; back, it imports
   * their shipments by the base records it wrote at its own shipments, instead of scanning.
   */
  @Test
  void restartBetweenTheHandOffs_theReturningLeaderImports_byItsDurableBase(@TempDir Path dir)
      throws Exception {
    Result r = run(dir, true, 0, Return.RESTART);
    // Each range node 1 shipped from leader-only mode has a record (a drain that gave up after a
    // lease on a loaded machine releases plainly: no record, and that range is scanned).
    assertEnteredByRecordOrScan(r);
  }

  /**
   * A graceful stop hands off (docs/PROTOCOL.md "A graceful stop hands off"): node 1, the natural
   * leader serving its ranges leader-only under the counter load, is closed — no step-down first —
   * so its stop drains and ships each range to its stand-in and writes its base records; started
   * again on its directories, it takes every range back by importing the stand-ins' shipments, with
   * no scan. A plain rolling restart of a node.
   */
  @Test
  void gracefulStop_handsItsRangesOff_theRestartedLeaderImports(@TempDir Path dir)
      throws Exception {
    Result r = run(dir, true, 0, Return.STOPPED);
    assertEquals(r.ranges, r.stopHandedOff + r.stopReleased, "every range held counted once");
    // Handed off = the drains the stop shipped; the meter says what the node counted.
    assertEquals(r.shippedAtStop, r.stopHandedOff, "ranges handed off = shipments at the stop");
    assertEquals(
        new StopMeter.Read(r.stopHandedOff, r.ranges - r.stopHandedOff),
        r.meter,
        "frsm.shutdown.ranges{outcome=handed_off|released}");
    // A drain that gave up after a lease on a loaded machine releases plainly: no record, and
    // that range is scanned; every other range is imported.
    assertTrue(r.stopHandedOff > 0, "the stop handed no range off");
    assertEnteredByRecordOrScan(r);
  }

  /**
   * A killed natural leader returns by import (docs/PROTOCOL.md "A killed holder: covering its
   * term"): node 1 serves its ranges leader-only, with an entry base record per range (written
   * after its scans, following a flush); it is killed under the counter load (no drain, no flush,
   * no hand over: its session runs out), the stand-ins wait out its lease, scan — learning node 1's
   * term records — and serve; restarted on its directories, node 1 gets every range handed back
   * with a shipment covering its killed term and imports it on its entry base instead of scanning.
   * No acknowledged increment lost or doubled. A range scanned instead is one whose hand-back fell
   * back (counted) or whose stand-in's shipment did not cover the killed term (its scan had not
   * completed, or skipped a key): those imports are refused, counted as refused.
   */
  @Test
  void killedNaturalLeader_returnsByImportOnItsEntryBase(@TempDir Path dir) throws Exception {
    try (TestCluster cluster =
        TestCluster.withTweaks(dir, b -> b.set(ConsensusKeys.HAND_OFF, true))) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (ring.replicasOfRange(r).get(0) == 1) {
          ledBy1.add(r);
        }
      }
      FrsmNode n1 = cluster.node(1);
      Await.until(
          () -> tally(n1).scansCompleted() >= ledBy1.size(), TIMEOUT, "node 1 to scan its ranges");
      Path records = dir.resolve("node-1/data").resolve(HandOffBaseRecords.DIRECTORY);
      Await.until(
          () -> recordFiles(records) >= ledBy1.size(),
          TIMEOUT,
          "node 1's entry base records of its " + ledBy1.size() + " ranges");
      HotKeyLoad load = new HotKeyLoad(cluster, ledBy1);
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");
      HandOffTally[] standInTallies = {null, null, tally(cluster.node(2)), tally(cluster.node(3))};
      long killedAt = System.nanoTime();
      cluster.crash(1); // as kill -9: no drain, no hand-off, no flush
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
      }
      for (int id = 2; id <= 3; id++) {
        FrsmNode n = cluster.node(id);
        int standIn = id;
        long held = ledBy1.stream().filter(r -> ring.replicasOfRange(r).get(1) == standIn).count();
        awaitLeaderOnly(n, standInTallies[id], held); // their scans cover node 1's killed term
      }
      // The stand-ins serve the load for a while (about ten seconds in all since the kill).
      long until = killedAt + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < until) {
        load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments at the stand-ins");
      }
      long entryRecords = recordFiles(records);
      HandBackCounts standInsBefore = sum(cluster);
      long backAt = System.nanoTime();
      FrsmNode back = cluster.restart(1);
      cluster.awaitNaturalLeaders();
      awaitLeaderOnly(back, HandOffTally.ZERO, ledBy1.size());
      long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - backAt);
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments after the return");
      load.close();
      List<String> violations = load.counterViolations(cluster.thinClient());
      HandOffTally after = tally(back);
      HandBackCounts standIns = sum(cluster);
      long fallbacks = fallbacks(standInsBefore, standIns) + after.importsRefused();
      System.out.printf(
          "killed natural leader: %d entry base records at the kill; back, %d ranges leader-only"
              + " in %d ms: %d by import, %d by scan (%d imports refused); stand-ins %s; %d"
              + " increments acknowledged, client errors %d%n",
          entryRecords,
          ledBy1.size(),
          backMillis,
          after.enteredByImport(),
          after.scansCompleted(),
          after.importsRefused(),
          standIns,
          load.keys().stream().mapToLong(k -> k.acknowledged.get()).sum(),
          load.errorCount());
      assertEquals(List.of(), violations, "acknowledged increments lost or doubled");
      assertEquals(
          ledBy1.size(),
          after.enteredByImport() + after.scansCompleted(),
          "each range entered once, by import or scan");
      assertTrue(after.enteredByImport() > 0, "no range came back by import: " + standIns);
      assertTrue(
          after.scansCompleted() <= fallbacks,
          after.scansCompleted() + " ranges scanned, " + fallbacks + " fell back: " + standIns);
    }
  }

  private static long recordFiles(Path records) {
    if (!java.nio.file.Files.isDirectory(records)) {
      return 0;
    }
    try (var list = java.nio.file.Files.list(records)) {
      return list.filter(f -> !f.getFileName().toString().endsWith(".tmp")).count();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Node 1 took each of its ranges back once, by import or by scan, and imported only where it had
   * a base record. A range with a record is scanned instead only when its hand-back fell back — the
   * stand-in declined it, its drain gave up after a lease, the shipment went unacknowledged, or
   * node 1 refused the import — each counted, so the records not imported are at most those.
   */
  private static void assertEnteredByRecordOrScan(Result r) {
    assertTrue(r.records > 0, "no base record written");
    assertEquals(r.ranges, r.imported + r.newScans, "each range entered once, by import or scan");
    assertTrue(
        r.imported <= r.records, r.imported + " ranges imported, " + r.records + " base records");
    assertTrue(
        r.records - r.imported <= r.fallbacks,
        (r.records - r.imported)
            + " ranges with a base record scanned, "
            + r.fallbacks
            + " hand-backs fell back: "
            + r.standIns);
  }

  /**
   * A stop whose drains cannot settle — node 1 cut off from its peers' messages (not from
   * ZooKeeper, nor from the stream connections that carry shipments), so a settle reaches no quorum
   * — still ends within its bound, and every range it held is either handed off or released
   * plainly; the stand-ins take them over. A range with an accept of node 1 open at the cut cannot
   * drain and is released after the stop wait; one whose rounds had all ended chosen needs no
   * settle (docs/PROTOCOL.md "Settle only what may be open") and ships over the stream.
   */
  @Test
  void gracefulStop_cutOffFromItsPeers_endsWithinTheBound_handingOffOrReleasingEveryRange(
      @TempDir Path dir) throws Exception {
    Duration stopWait = Duration.ofSeconds(1);
    Duration drainTimeout = Duration.ofSeconds(5); // TestCluster's
    try (TestCluster cluster =
        TestCluster.withFaults(
            dir,
            b ->
                b.set(ConsensusKeys.HAND_OFF, true)
                    .set(ConsensusKeys.HAND_OFF_STOP_WAIT, stopWait)
                    // No step-down: the cut must reach the stop with node 1 still holding.
                    .stepDownAfter(Duration.ZERO))) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (ring.replicasOfRange(r).get(0) == 1) {
          ledBy1.add(r);
        }
      }
      FrsmNode n1 = cluster.node(1);
      // Every range of node 1 has a key written in node 1's term: its drains have keys to settle.
      HotKeyLoad load = new HotKeyLoad(cluster, ledBy1);
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");
      int held = n1.rangesLed();
      StopMeter meter = StopMeter.of(n1);
      cluster.isolateFromPeers(1);
      long closeAt = System.nanoTime();
      n1.close();
      long closeMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closeAt);
      var leadership = n1.servingParts().leadership();
      System.out.printf(
          "cut-off stop: %d ranges held, %d handed off, %d released plainly; close took %d ms"
              + " (drain timeout %d ms, stop wait %d ms)%n",
          held,
          leadership.stopRangesHandedOff(),
          leadership.stopRangesReleased(),
          closeMillis,
          drainTimeout.toMillis(),
          stopWait.toMillis());
      long handedOff = leadership.stopRangesHandedOff();
      assertEquals(
          held,
          handedOff + leadership.stopRangesReleased(),
          "every range held handed off or released plainly");
      // The stop's bound, not a speed: the drain, the hand-offs and their records each waited at
      // most their bound; 10 s for the rest of the stop (ZooKeeper, transports, the engine).
      long boundMillis = drainTimeout.plus(stopWait.multipliedBy(2)).toMillis() + 10_000;
      assertTrue(closeMillis <= boundMillis, "close took " + closeMillis + " ms > " + boundMillis);
      cluster.healLinks();
      for (int r : ledBy1) {
        cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
      }
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments at the stand-ins");
      load.close();
      assertEquals(
          List.of(), load.counterViolations(cluster.thinClient()), "increments lost or doubled");
      assertEquals(
          new StopMeter.Read(handedOff, held - handedOff),
          meter.read(),
          "frsm.shutdown.ranges{outcome=handed_off|released}");
    }
  }

  /** As above with node 1's base records damaged while it is down: not trusted, it scans. */
  @Test
  void restartWithItsBaseRecordsDamaged_theReturningLeaderScans(@TempDir Path dir)
      throws Exception {
    Result r = run(dir, true, 0, Return.RESTART_RECORDS_DAMAGED);
    assertTrue(r.records > 0, "no base record written");
    assertEquals(0, r.imported, "no import without a trusted record");
    assertTrue(r.newScans >= r.ranges, "node 1 scanned its ranges: " + r.newScans);
  }

  @Test
  void handBack_withTheFlagOff_theReturningLeaderScans(@TempDir Path dir) throws Exception {
    Result r = run(dir, false, 0);
    assertEquals(0, r.imported, "no import without the flag");
    assertTrue(r.newScans >= r.ranges, "node 1 scanned its ranges: " + r.newScans);
    assertEquals(0, r.standIns.begun(), "no hand-off began: " + r.standIns);
  }

  /**
   * Catch-up time of the returning node, hand-off vs scan (docs/BENCHMARKS.md): {@code
   * -Dfrsm.handoff.benchKeys=N} keys in node 1's ranges, 1 % of them changed while it is away
   * ({@code -Dfrsm.handoff.benchChanged=M} to change M keys instead, spread evenly over the bulk;
   * {@code -Dfrsm.handoff.benchSides=on} or {@code off} to run one side only). Not run by default
   * (it loads the machine for minutes).
   */
  @Test
  void catchUp_handOffVsScan(@TempDir Path dir) throws Exception {
    int keys = Integer.getInteger("frsm.handoff.benchKeys", 0);
    Assumptions.assumeTrue(keys > 0, "set -Dfrsm.handoff.benchKeys to run");
    // -Dfrsm.handoff.benchSides=on (or off) runs one side only: a 1M-key side takes ~15 minutes.
    String sides = System.getProperty("frsm.handoff.benchSides", "both");
    // -Dfrsm.handoff.benchReturn=killed: node 1 is killed and restarted instead of giving its
    // ranges up and competing again.
    Return how =
        System.getProperty("frsm.handoff.benchReturn", "compete").equals("killed")
            ? Return.KILLED
            : Return.COMPETE;
    Result off = sides.equals("on") ? null : run(dir.resolve("off"), false, keys, how);
    Result on = sides.equals("off") ? null : run(dir.resolve("on"), true, keys, how);
    if (off == null || on == null) {
      Result ran = off == null ? on : off;
      System.out.printf(
          "catch-up of %d ranges holding %d keys, %d changed, hand-off %s: %d ms%n",
          ran.ranges, keys, changedCount(keys), off == null ? "on" : "off", ran.backMillis);
      if (on != null) {
        assertHandOffSide(on, how);
      }
      return;
    }
    System.out.printf(
        "catch-up (%s) of %d ranges holding %d keys, %d changed: scan %d ms, hand-off %d ms"
            + " (%.1fx)%n",
        how,
        on.ranges,
        keys,
        changedCount(keys),
        off.backMillis,
        on.backMillis,
        (double) off.backMillis / Math.max(1, on.backMillis));
    // A range whose stand-in wrote more than consensus.handOffMaxKeys in its term is declined and
    // scanned (the ring's ranges are uneven: at 100,000 keys one holds ~40 %, and 1 % of it
    // exceeds the default cap); every other range comes back by import, and no drain gives up.
    assertHandOffSide(on, how);
  }

  /**
   * A range whose stand-in wrote more than consensus.handOffMaxKeys in its term is declined and
   * scanned; after a kill, a range is also scanned when node 1 refused the stand-in's shipment (it
   * did not cover the killed term) or the hand-back fell back otherwise, each counted. Every other
   * range comes back by import, and no drain gives up.
   */
  private static void assertHandOffSide(Result on, Return how) {
    if (how == Return.KILLED) {
      assertTrue(on.imported > 0, "no range came back by import: " + on.standIns);
      assertTrue(
          on.newScans <= on.fallbacks,
          on.newScans + " ranges scanned, " + on.fallbacks + " fell back: " + on.standIns);
      return;
    }
    assertEquals(on.declined, on.newScans, "node 1 scanned only ranges whose hand-off declined");
    assertEquals(0, on.standIns.withoutShipment(), "a drain gave up after a lease: " + on.standIns);
  }

  private record Result(
      int ranges,
      long newScans,
      long imported,
      HandBackCounts standIns,
      long backMillis,
      long declined,
      long fallbacks,
      long records,
      long stopHandedOff,
      long stopReleased,
      long shippedAtStop,
      StopMeter.Read meter) {}

  /**
   * A node's {@code frsm.shutdown.ranges} counters, taken before its stop: the stop removes the
   * node's meters from the registry, a counter taken before still reads its source.
   */
  private record StopMeter(FunctionCounter handedOff, FunctionCounter released) {
    record Read(long handedOff, long released) {}

    static StopMeter of(FrsmNode n) {
      MeterRegistry registry = n.meterRegistry();
      return new StopMeter(
          registry.get("frsm.shutdown.ranges").tag("outcome", "handed_off").functionCounter(),
          registry.get("frsm.shutdown.ranges").tag("outcome", "released").functionCounter());
    }

    /**
     * The counts after a full collection: a function meter holds its source only weakly, so one
     * whose source the node does not keep would show its last value read, not the stop's counts.
     */
    Read read() {
      System.gc();
      return new Read((long) handedOff.count(), (long) released.count());
    }
  }

  /** How node 1 comes back to its ranges. */
  private enum Return {
    /** It competes again, without restarting. */
    COMPETE,
    /** It stops gracefully and starts again. */
    RESTART,
    /** As {@link #RESTART}, one byte of each of its base records flipped while it is down. */
    RESTART_RECORDS_DAMAGED,
    /** It gives its ranges up by a graceful stop (no step-down), then starts again. */
    STOPPED,
    /**
     * It is killed (as {@code kill -9}: no drain, no hand-off, no flush) once its entry base
     * records are written, then starts again on its directories.
     */
    KILLED
  }

  private static Result run(Path dir, boolean handOff, int preload) throws Exception {
    return run(dir, handOff, preload, Return.COMPETE);
  }

  private static Result run(Path dir, boolean handOff, int preload, Return how) throws Exception {
    try (TestCluster cluster =
        TestCluster.withTweaks(
            dir,
            b -> {
              b.set(ConsensusKeys.HAND_OFF, handOff);
              // To compare a budget that never holds a hand-off back (e.g. 1048576).
              Integer budget = Integer.getInteger("frsm.handoff.drainBudgetKeys");
              if (budget != null) {
                b.set(ConsensusKeys.HAND_OFF_DRAIN_BUDGET_KEYS, budget);
              }
            })) {
      Ring ring = cluster.ring();
      List<Integer> ledBy1 = new ArrayList<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        if (ring.replicasOfRange(r).get(0) == 1) {
          ledBy1.add(r);
        }
      }
      FrsmNode n1 = cluster.node(1);
      List<byte[]> loaded = List.of();
      // Node 1 serves its ranges leader-only (its scans done): a hand-off records its base then.
      Await.until(
          () -> tally(n1).scansCompleted() >= ledBy1.size(), TIMEOUT, "node 1 to scan its ranges");
      if (preload > 0) {
        // The bulk is written by the stand-ins, so that node 1 gets it back by a scan (a term that
        // wrote that many keys declines the hand-off) and its own next term writes only the hot
        // keys.
        giveUp(cluster, ledBy1);
        loaded = preload(cluster, ledBy1, preload);
        HandOffTally warm = tally(n1);
        n1.servingParts().leadership().quorumChanged(Set.of(), Set.copyOf(ledBy1));
        cluster.awaitNaturalLeaders();
        awaitLeaderOnly(n1, warm, ledBy1.size());
        System.out.printf(
            "hand-off %s warm-up: stand-ins %s%n", handOff ? "on" : "off", sum(cluster));
      }
      Path recordsDir = dir.resolve("node-1/data").resolve(HandOffBaseRecords.DIRECTORY);
      if (how == Return.KILLED && handOff) {
        // A kill keeps only what is durable: node 1 returns by import only on the entry base
        // records its leader-only entries wrote (after a flush).
        Await.until(
            () -> recordFiles(recordsDir) >= ledBy1.size(),
            Duration.ofMinutes(5),
            "node 1's entry base records of its " + ledBy1.size() + " ranges");
      }
      HotKeyLoad load = new HotKeyLoad(cluster, ledBy1);
      Await.until(
          () -> load.keys().stream().allMatch(k -> k.acknowledged.get() >= 3),
          TIMEOUT,
          "every hot key to take increments");

      HandOffTally[] standInTallies = {null, null, tally(cluster.node(2)), tally(cluster.node(3))};
      long errorsAtGiveUp = load.errorCount();
      long giveUpAt = System.nanoTime();
      long stopMillis = -1;
      long shippedAtStop = -1;
      StopMeter stopMeter = null;
      if (how == Return.STOPPED) {
        stopMeter = StopMeter.of(n1);
        long shippedBefore = n1.servingParts().leadership().handBacks().shipped();
        n1.close(); // a graceful stop, no step-down first
        shippedAtStop = n1.servingParts().leadership().handBacks().shipped() - shippedBefore;
        stopMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - giveUpAt);
        for (int r : ledBy1) {
          cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
        }
      } else if (how == Return.KILLED) {
        cluster.crash(1);
        for (int r : ledBy1) {
          cluster.awaitLeader(r, ring.replicasOfRange(r).get(1), TIMEOUT);
        }
      } else {
        giveUp(cluster, ledBy1);
      }
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments at the stand-ins");
      long servedAt = System.nanoTime();
      System.out.printf(
          "hand-off %s: longest write gap of a hot key at the give-up %d ms%n",
          handOff ? "on" : "off",
          TimeUnit.NANOSECONDS.toMillis(
              load.keys().stream()
                  .mapToLong(k -> HotKeyLoad.longestWriteGapNanos(k, giveUpAt, servedAt))
                  .max()
                  .orElse(0)));
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "more increments at the stand-ins");
      if (preload > 0) {
        // The stand-ins scanned the bulk in their own terms: wait, so the return measures only
        // the return.
        for (int id = 2; id <= 3; id++) {
          FrsmNode n = cluster.node(id);
          long held =
              ledBy1.stream().filter(r -> ring.replicasOfRange(r).get(1) == n.nodeId()).count();
          // By a scan, or by importing node 1's shipment: a stand-in whose own hand-back drain
          // shipped after its agent gave up on it holds that term as its base.
          awaitLeaderOnly(n, standInTallies[n.nodeId()], held);
        }
        change(cluster, loaded, changedCount(loaded.size()));
      }

      HandBackCounts standInsBefore = sum(cluster);
      long errorsAtReturn = load.errorCount();
      long backAt;
      long recordsWritten = 0;
      HandOffTally before;
      FrsmNode back = n1;
      if (how == Return.COMPETE) {
        before = tally(n1);
        backAt = System.nanoTime();
        n1.servingParts().leadership().quorumChanged(Set.of(), Set.copyOf(ledBy1));
      } else {
        if (how != Return.STOPPED && how != Return.KILLED) {
          n1.close();
        }
        Path records = recordsDir;
        List<Path> files = List.of(); // no directory: no record was ever written
        if (java.nio.file.Files.isDirectory(records)) {
          try (var list = java.nio.file.Files.list(records)) {
            files = list.toList();
          }
        }
        recordsWritten = files.size();
        System.out.printf(
            "node 1 stopped with %d base records for its %d ranges (stop: %d handed off, %d"
                + " released plainly, close %d ms)%n",
            files.size(),
            ledBy1.size(),
            n1.servingParts().leadership().stopRangesHandedOff(),
            n1.servingParts().leadership().stopRangesReleased(),
            stopMillis);
        if (how == Return.RESTART_RECORDS_DAMAGED) {
          for (Path f : files) {
            byte[] b = java.nio.file.Files.readAllBytes(f);
            b[b.length / 2] ^= 0x10;
            java.nio.file.Files.write(f, b);
          }
        }
        before = HandOffTally.ZERO; // the new process counts from zero
        backAt = System.nanoTime();
        back = cluster.restart(1);
      }
      cluster.awaitNaturalLeaders();
      awaitLeaderOnly(back, before, ledBy1.size());
      long backMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - backAt);
      load.awaitIncrementsAfter(System.nanoTime(), TIMEOUT, "increments after the return");
      long endAt = System.nanoTime();
      load.close();
      // The write pause the return cost each hot key: its longest time without an acknowledged
      // increment from the return on (the drain, the delivery, the release and the grant).
      long longestWriteGap =
          load.keys().stream()
              .mapToLong(k -> HotKeyLoad.longestWriteGapNanos(k, backAt, endAt))
              .max()
              .orElse(0);
      System.out.printf(
          "hand-off %s: longest write gap of a hot key after the return %d ms%n",
          handOff ? "on" : "off", TimeUnit.NANOSECONDS.toMillis(longestWriteGap));
      List<String> violations = load.counterViolations(cluster.thinClient());
      HandOffTally after = tally(back);
      HandBackCounts standIns = sum(cluster);
      System.out.printf(
          "hand-off %s: %d ranges of node 1 back leader-only %d ms after it competed again; %d"
              + " by import, %d by scan; stand-ins %s; %d increments acknowledged, client errors"
              + " %d%n",
          handOff ? "on" : "off",
          ledBy1.size(),
          backMillis,
          after.enteredByImport() - before.enteredByImport(),
          after.scansCompleted() - before.scansCompleted(),
          standIns,
          load.keys().stream().mapToLong(k -> k.acknowledged.get()).sum(),
          load.errorCount());
      printErrors(load, errorsAtGiveUp, errorsAtReturn);
      assertEquals(List.of(), violations, "acknowledged increments lost or doubled");
      return new Result(
          ledBy1.size(),
          after.scansCompleted() - before.scansCompleted(),
          after.enteredByImport() - before.enteredByImport(),
          standIns,
          backMillis,
          declined(standIns) - declined(standInsBefore),
          fallbacks(standInsBefore, standIns) + after.importsRefused() - before.importsRefused(),
          recordsWritten,
          n1.servingParts().leadership().stopRangesHandedOff(),
          n1.servingParts().leadership().stopRangesReleased(),
          shippedAtStop,
          stopMeter == null ? null : stopMeter.read()); // after the load: read() collects
    }
  }

  /**
   * What the clients saw, by phase (before node 1 gave its ranges up, while the stand-ins held
   * them, after it competed again) and by kind (the first 100 errors, numbers stripped so that
   * alike messages count together).
   */
  private static void printErrors(HotKeyLoad load, long atGiveUp, long atReturn) {
    List<String> kept = load.errors();
    String[] phases = {"before the give-up", "give-up and stand-ins", "return"};
    long[] bounds = {0, atGiveUp, atReturn, load.errorCount()};
    for (int p = 0; p < phases.length; p++) {
      java.util.Map<String, Integer> kinds = new java.util.TreeMap<>();
      for (long i = bounds[p]; i < Math.min(bounds[p + 1], kept.size()); i++) {
        kinds.merge(kept.get((int) i).replaceAll("[0-9]+", "N"), 1, Integer::sum);
      }
      System.out.printf("client errors, %s: %d %s%n", phases[p], bounds[p + 1] - bounds[p], kinds);
    }
  }

  /** Node 1 gives its ranges up (the step-down path) and the stand-ins hold them. */
  private static void giveUp(TestCluster cluster, List<Integer> ledBy1) {
    cluster.node(1).servingParts().leadership().quorumChanged(Set.copyOf(ledBy1), Set.of());
    for (int r : ledBy1) {
      cluster.awaitLeader(r, cluster.ring().replicasOfRange(r).get(1), TIMEOUT);
    }
  }

  /** Waits until the node entered leader-only mode {@code ranges} more times, by import or scan. */
  private static void awaitLeaderOnly(FrsmNode n1, HandOffTally before, long ranges) {
    Await.until(
        () -> {
          HandOffTally t = tally(n1);
          return t.enteredByImport()
                  - before.enteredByImport()
                  + t.scansCompleted()
                  - before.scansCompleted()
              >= ranges;
        },
        Duration.ofMinutes(5),
        "node " + n1.nodeId() + " to serve its ranges leader-only again");
  }

  /** Creates {@code n} keys in {@code ranges}, many at once; returns them. */
  private static List<byte[]> preload(TestCluster cluster, List<Integer> ranges, int n) {
    List<byte[]> keys = new ArrayList<>();
    Set<Integer> in = Set.copyOf(ranges);
    for (int i = 0; keys.size() < n; i++) {
      byte[] key = ("bulk/" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
      if (in.contains(cluster.rangeOf(key))) {
        keys.add(key);
      }
    }
    write(cluster, keys, true);
    return keys;
  }

  /** How many of the bulk's keys change while node 1 is away: 1 %, or as the property says. */
  private static int changedCount(int bulk) {
    return Math.min(bulk, Integer.getInteger("frsm.handoff.benchChanged", bulk / 100));
  }

  /** Overwrites {@code count} of {@code keys}, evenly spread, while node 1 is away. */
  private static void change(TestCluster cluster, List<byte[]> keys, int count) {
    List<byte[]> some = new ArrayList<>();
    int stride = count == 0 ? 1 : Math.max(1, keys.size() / count);
    for (int i = 0; i < count; i++) {
      some.add(keys.get(i * stride));
    }
    write(cluster, some, false);
  }

  /** Creates (or, by a fence then a CAS, overwrites) each key, 256 in flight at once. */
  private static void write(TestCluster cluster, List<byte[]> keys, boolean create) {
    io.frsm.api.FrsmClient client = cluster.thinClient(Duration.ofSeconds(30));
    java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(256);
    java.util.concurrent.atomic.AtomicReference<Throwable> failed =
        new java.util.concurrent.atomic.AtomicReference<>();
    byte[] value = new byte[100];
    for (byte[] key : keys) {
      inFlight.acquireUninterruptibly();
      java.util.concurrent.CompletableFuture<?> f = writeOne(client, key, value, create, 5);
      f.whenComplete(
          (ok, e) -> {
            if (e != null) {
              failed.compareAndSet(null, e);
            }
            inFlight.release();
          });
    }
    inFlight.acquireUninterruptibly(256);
    if (failed.get() != null) {
      throw new AssertionError("bulk writes failed", failed.get());
    }
  }

  /**
   * One key's write; an outcome left unknown (a loaded machine can run past the bounded delay) is
   * resolved as the client says — a fence, then the key as the fence found it — and the write made
   * again if it did not take effect, up to {@code attempts} times (a fence that itself fails counts
   * as an attempt). The value is the same bytes either way, so a write that did land is as good as
   * a retried one; a retried create that finds the key present found its own earlier attempt.
   */
  private static java.util.concurrent.CompletableFuture<?> writeOne(
      io.frsm.api.FrsmClient client, byte[] key, byte[] value, boolean create, int attempts) {
    return writeOne(client, key, value, create, attempts, false);
  }

  private static java.util.concurrent.CompletableFuture<?> writeOne(
      io.frsm.api.FrsmClient client,
      byte[] key,
      byte[] value,
      boolean create,
      int attempts,
      boolean retried) {
    java.util.concurrent.CompletableFuture<?> f =
        create
            ? client.createAsync(key, value)
            : client
                .getAsync(key)
                .thenCompose(v -> client.casAsync(key, v.orElseThrow().version(), value));
    return f.handle((ok, e) -> e)
        .thenCompose(
            e -> {
              Throwable cause = unwrap(e);
              if (cause == null
                  || (create && retried && cause instanceof io.frsm.api.KeyExistsException)) {
                return java.util.concurrent.CompletableFuture.completedFuture(null);
              }
              if (!(cause instanceof io.frsm.api.OutcomeUnknownException) || attempts <= 1) {
                return java.util.concurrent.CompletableFuture.failedFuture(cause);
              }
              return client
                  .fenceAsync(key)
                  .handle((found, fenceError) -> fenceError == null && create && found.isPresent())
                  .thenCompose(
                      landed ->
                          landed
                              ? java.util.concurrent.CompletableFuture.completedFuture(null)
                              : writeOne(client, key, value, create, attempts - 1, true));
            });
  }

  private static Throwable unwrap(Throwable e) {
    return e instanceof java.util.concurrent.CompletionException && e.getCause() != null
        ? e.getCause()
        : e;
  }

  private static HandOffTally tally(FrsmNode n) {
    CoreShards core = n.servingParts().core();
    return core == null ? HandOffTally.ZERO : core.handOffTally();
  }

  /** Hand-offs declined for any reason (the cap, the drain budget, the absence limit). */
  private static long declined(HandBackCounts c) {
    return c.declined() + c.declinedBudget() + c.declinedAbsence();
  }

  /** Hand-backs between two counts that shipped nothing node 1 could import. */
  private static long fallbacks(HandBackCounts from, HandBackCounts to) {
    return declined(to)
        - declined(from)
        + to.withoutShipment()
        - from.withoutShipment()
        + to.notAcknowledged()
        - from.notAcknowledged();
  }

  /** The hand-backs of nodes 2 and 3, the stand-ins. */
  private static HandBackCounts sum(TestCluster cluster) {
    long[] s = new long[12];
    for (int id = 2; id <= 3; id++) {
      HandBackCounts c = cluster.node(id).servingParts().leadership().handBacks();
      long[] v = {
        c.begun(),
        c.shipped(),
        c.keysShipped(),
        c.keysSettled(),
        c.acknowledged(),
        c.withoutShipment(),
        c.notAcknowledged(),
        c.declined(),
        c.declinedBudget(),
        c.declinedAbsence(),
        c.drainNanos()
      };
      for (int i = 0; i < v.length; i++) {
        s[i] += v[i];
      }
      s[11] = Math.max(s[11], c.drainNanosMax());
    }
    return new HandBackCounts(
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10], s[11]);
  }
}
