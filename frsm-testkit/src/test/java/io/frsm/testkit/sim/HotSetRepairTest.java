package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Time to repair a hot set (issue 23 point 2, docs/BENCHMARKS.md "Hot keys first"), in simulated
 * time: one range of {@code frsm.sim.hotRepairKeys} keys (default {@link #CI_KEYS}) that the new
 * holder, node 1, lacks entirely (the other two replicas hold every key chosen, preloaded into
 * their stores); node 1 takes the range over and clients ask for {@link #HOT} keys spread over the
 * range as soon as its scan starts. Time to repair: from the scan's start until every hot key is
 * served in leader-only mode — when the last hot key is settled ahead with hot keys first, when the
 * scan ends without. One-way delay 1 ms, no faults.
 */
class HotSetRepairTest {
  static final int CI_KEYS = 20_000;
  static final int HOT = 100;
  private static final long DELAY_MICROS = 1_000;
  private static final LeaseConfig LEASES = LeaseConfig.defaults();

  record Repair(long scanStartNanos, long hotSetSettledNanos, long scanEndNanos, CoreStats stats) {}

  @Test
  void hotSetOfAHundredKeys_isServedLeaderOnly_longBeforeTheScanEnds() {
    int keys = Integer.getInteger("frsm.sim.hotRepairKeys", CI_KEYS);
    long started = System.nanoTime();
    Repair after = measure(keys, true);
    long afterWall = System.nanoTime() - started;
    started = System.nanoTime();
    Repair before = measure(keys, false);
    long beforeWall = System.nanoTime() - started;
    System.out.printf(
        "hot set repair, %d keys, %d hot, simulated time from scan start:%n"
            + "  hot keys first: hot set leader-only after %.1f ms, scan done after %.1f ms"
            + " (%d keys pulled, mean pull %.2f ms, %d settled by the scan) [%d ms wall]%n"
            + "  without:        hot set leader-only after %.1f ms (= scan done) [%d ms wall]%n",
        keys,
        HOT,
        ms(after.hotSetSettledNanos() - after.scanStartNanos()),
        ms(after.scanEndNanos() - after.scanStartNanos()),
        after.stats().keysSettledByPull(),
        ms(after.stats().pullSettleNanos()) / Math.max(1, after.stats().keysSettledByPull()),
        after.stats().keysSettledByScan(),
        afterWall / 1_000_000,
        ms(before.hotSetSettledNanos() - before.scanStartNanos()),
        beforeWall / 1_000_000);
    assertEquals(HOT, after.stats().keysSettledByPull());
    assertEquals(keys, after.stats().keysSettledByPull() + after.stats().keysSettledByScan());
    assertEquals(0, before.stats().keysSettledByPull());
    assertTrue(
        after.hotSetSettledNanos() - after.scanStartNanos()
            < (before.hotSetSettledNanos() - before.scanStartNanos()) / 10,
        "the hot set is repaired in a small part of the scan's time");
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private Repair measure(int keys, boolean hotKeysFirst) {
    Simulation sim =
        new Simulation(
            11,
            FaultMix.exact(3, DELAY_MICROS, 0),
            Simulation.simConfig(3).toBuilder()
                .leases(LEASES)
                .placement(Placement.single(List.of(0, 1, 2)))
                .modes(new CoreConfig.Modes(true, 0, hotKeysFirst))
                .build(),
            1_000_000);
    try {
      Ballot ballot = new Ballot(1, 0, 0);
      List<Key> hot = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        Key key = key(i);
        byte[] value = ("v" + i).getBytes(StandardCharsets.US_ASCII);
        AcceptedValue accepted = AcceptedValue.live(1, 1, ballot, value, false);
        for (AcceptedValue v : List.of(accepted, accepted.withChosen(true))) {
          // Accepted by nodes 0 and 2 (a quorum), then marked chosen: node 1 never heard of it.
          sim.preload(0, Cell.accepted(key, v, 0));
          sim.preload(2, Cell.accepted(key, v, 0));
        }
        if (i % (keys / HOT) == 0 && hot.size() < HOT) {
          hot.add(key);
        }
      }
      long listings = sim.messages(Message.ListKeys.class);
      sim.input(1, new Input.TermGranted(0, 1));
      renew(sim, 1);
      sim.runUntil(
          () -> sim.messages(Message.ListKeys.class) > listings,
          sim.nowNanos() + 10_000_000_000L,
          "node 1's scan started");
      long scanStart = sim.nowNanos();
      long[] hotSettled = {-1};
      long[] scanEnd = {-1};
      // Clients: each hot key read again 1 ms after each answer, until the scan is done.
      for (Key key : hot) {
        readUntilScanned(sim, key);
      }
      sim.runUntil(
          () -> {
            long now = sim.nowNanos();
            CoreStats s = sim.stats(1);
            if (hotSettled[0] < 0 && s.keysSettledByPull() == HOT) {
              hotSettled[0] = now;
            }
            if (sim.rangeScansCompleted(1) == 1) {
              scanEnd[0] = now;
              if (hotSettled[0] < 0) {
                hotSettled[0] = now; // without pulls the hot keys are leader-only from here
              }
              return true;
            }
            return false;
          },
          sim.nowNanos() + 3_600_000_000_000L,
          "node 1's scan done");
      return new Repair(scanStart, hotSettled[0], scanEnd[0], sim.stats(1));
    } finally {
      sim.close();
    }
  }

  private static void readUntilScanned(Simulation sim, Key key) {
    if (sim.rangeScansCompleted(1) == 1) {
      return;
    }
    sim.submit(
        1,
        new Operation.Get(key),
        o -> {
          if (!(o instanceof Outcome.ReadResult r) || r.value().isEmpty()) {
            throw new AssertionError("hot key " + key + " read " + o);
          }
          sim.schedule(1_000_000, () -> readUntilScanned(sim, key));
        });
  }

  private static Key key(int i) {
    return Key.of(("repair-" + i).getBytes(StandardCharsets.US_ASCII));
  }

  private static void renew(Simulation sim, int node) {
    long sent = sim.monoNanos(node);
    sim.schedule(DELAY_MICROS * 1000, () -> sim.input(node, new Input.LeaseRenewed(0, 1, sent)));
    sim.schedule(LEASES.lease().toNanos() / 4, () -> renew(sim, node));
  }
}
