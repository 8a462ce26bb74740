package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A new range holder's scan (docs/DESIGN.md "Lease invariant" rule 5) on a replica that missed
 * every write: it must page through the keys of the other replicas — more than one page, in every
 * range, across the wrapping range's two token segments — and bring each key's chosen value into
 * its own cell before it serves a single read from local state.
 */
class RangeScanTest {
  private static final Placement PLACEMENT = ScriptedRanges.PLACEMENT;

  /** More keys than two pages of one range. */
  private static final int KEYS = 1_800;

  private Simulation sim;
  private ScriptedRanges ranges;

  @BeforeEach
  void setUp() {
    ranges = new ScriptedRanges(CoreConfig.Modes.DEFAULT, Set.of());
    sim = ranges.sim();
  }

  @Test
  void holderThatMissedEveryWrite_scansAllPages_thenServesEveryKeyLocally() {
    for (int range = 0; range < 3; range++) {
      ranges.grant(0, range, 1);
    }
    sim.runUntil(() -> sim.rangeScansCompleted(0) == 3, 10_000_000_000L, "node 0 scanned");

    ranges.isolate(1, true);
    Map<Key, Version> written = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      Key key = key(i);
      Outcome o =
          ranges.run(0, new Operation.Create(key, ("v" + i).getBytes(StandardCharsets.US_ASCII)));
      written.put(key, assertInstanceOf(Outcome.Written.class, o).version());
    }
    ranges.runFor(10_000_000);
    ranges.isolate(1, false);
    for (Key key : written.keySet()) {
      assertNull(sim.durableCell(1, key), "node 1 missed every write");
    }
    int[] perRange = new int[3];
    written.keySet().forEach(k -> perRange[PLACEMENT.rangeOf(k)]++);
    for (int n : perRange) {
      assertTrue(
          n > 256, "each range needs more than one page: " + java.util.Arrays.toString(perRange));
    }

    // Node 1 becomes the holder of every range (node 0 stops renewing and its leases run out).
    ranges.stopRenewing(0);
    long listingsBefore = sim.messages(Message.ListKeys.class);
    for (int range = 0; range < 3; range++) {
      ranges.grant(1, range, 2);
    }
    sim.runUntil(() -> sim.rangeScansCompleted(1) == 3, 30_000_000_000L, "node 1 scanned");
    assertTrue(
        sim.messages(Message.ListKeys.class) - listingsBefore >= 3 * 3 * 2,
        "two pages or more per range, each sent to the three replicas");
    ranges.runFor(10_000_000); // the reads' commits to node 1 itself become durable
    assertEquals(0, sim.stats(1).gets(), "the scan's own reads are not counted as client gets");

    for (var e : written.entrySet()) {
      Cell local = sim.durableCell(1, e.getKey());
      assertTrue(
          local != null && local.accepted() != null && local.accepted().chosen(),
          "node 1 holds the chosen value of " + e.getKey() + ": " + local);
      assertEquals(e.getValue().epoch(), local.accepted().epoch());
      assertEquals(e.getValue().timestamp(), local.accepted().timestamp());
    }

    long messages = sim.messagesTotal();
    long served = sim.leaderOnlyReads();
    List<Key> sample = new ArrayList<>(written.keySet()).subList(0, 50);
    for (Key key : sample) {
      Outcome.ReadResult r =
          assertInstanceOf(Outcome.ReadResult.class, ranges.run(1, new Operation.Get(key)));
      assertEquals(written.get(key), r.value().orElseThrow().version());
    }
    assertEquals(messages, sim.messagesTotal(), "served from node 1's own cells");
    assertEquals(served + sample.size(), sim.leaderOnlyReads());
    assertEquals(sample.size(), sim.stats(1).gets());
    assertEquals(sample.size(), sim.stats(1).readsLeaderOnly());
  }

  /**
   * A scan that cannot hear from every replica prepares (Algorithm 1's promise condition is not
   * met) but never quenches: each key keeps the version its last write gave it. A quench would be a
   * write no client asked for, moving versions under the clients (MultiProcessCrashIT's
   * linearizability check found one after a leader kill).
   */
  @Test
  void scanWithAReplicaDown_preparesButKeepsEveryKeysVersion() {
    for (int range = 0; range < 3; range++) {
      ranges.grant(0, range, 1);
    }
    sim.runUntil(() -> sim.rangeScansCompleted(0) == 3, 10_000_000_000L, "node 0 scanned");
    Map<Key, Version> written = new HashMap<>();
    for (int i = 0; i < 300; i++) {
      Key key = key(i);
      Outcome o =
          ranges.run(0, new Operation.Create(key, ("v" + i).getBytes(StandardCharsets.US_ASCII)));
      Version v = assertInstanceOf(Outcome.Written.class, o).version();
      o = ranges.run(0, new Operation.Cas(key, v, ("w" + i).getBytes(StandardCharsets.US_ASCII)));
      written.put(key, assertInstanceOf(Outcome.Written.class, o).version());
    }
    ranges.runFor(10_000_000);

    ranges.isolate(2, true);
    ranges.stopRenewing(0);
    long preparesBefore = sim.messages(Message.Prepare.class);
    long acceptsBefore = sim.messages(Message.Accept.class);
    for (int range = 0; range < 3; range++) {
      ranges.grant(1, range, 2);
    }
    sim.runUntil(() -> sim.rangeScansCompleted(1) == 3, 60_000_000_000L, "node 1 scanned");
    ranges.runFor(10_000_000);
    assertTrue(
        sim.messages(Message.Prepare.class) > preparesBefore,
        "without node 2's answers the scan's reads must prepare");
    assertEquals(
        acceptsBefore,
        sim.messages(Message.Accept.class),
        "every value was known chosen: the scan wrote nothing");
    for (var e : written.entrySet()) {
      for (int node : new int[] {0, 1}) {
        Cell cell = sim.durableCell(node, e.getKey());
        assertEquals(
            e.getValue().timestamp(),
            cell.accepted().timestamp(),
            "node " + node + " holds " + e.getKey() + " at its written version: " + cell);
      }
      Outcome.ReadResult r =
          assertInstanceOf(Outcome.ReadResult.class, ranges.run(1, new Operation.Get(e.getKey())));
      assertEquals(e.getValue(), r.value().orElseThrow().version());
    }
  }

  @Test
  void scanOfAnEmptyRange_endsAtOnce_andAbsentKeysAreReadLocally() {
    ranges.grant(2, 1, 1);
    sim.runUntil(() -> sim.rangeScansCompleted(2) == 1, 10_000_000_000L, "node 2 scanned");
    Key absent = null;
    for (int i = 0; absent == null; i++) {
      if (PLACEMENT.rangeOf(key(i)) == 1) {
        absent = key(i);
      }
    }
    long messages = sim.messagesTotal();
    Outcome.ReadResult r =
        assertInstanceOf(Outcome.ReadResult.class, ranges.run(2, new Operation.Get(absent)));
    assertTrue(r.value().isEmpty());
    assertEquals(messages, sim.messagesTotal(), "leader-only: no messages");
  }

  private static Key key(int i) {
    return Key.of(("scan-" + i).getBytes(StandardCharsets.US_ASCII));
  }
}
