package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.Sabotage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Hot keys first (docs/PROTOCOL.md "Hot keys first"): a new holder that missed every write scans
 * its ranges; clients meanwhile ask for a few keys at the very end of the scan order. Each of them
 * is pulled forward — read at once, ahead of the scan — and from then on served from the holder's
 * own cell, with 0 messages, long before the scan reaches it; the scan skips them.
 */
class HotKeysFirstTest {
  private static final Placement PLACEMENT = ScriptedRanges.PLACEMENT;

  private static final int KEYS = 3_000;
  private static final int HOT = 20;

  private Simulation sim;
  private ScriptedRanges ranges;
  private final Map<Key, Version> written = new HashMap<>();
  private final List<Key> hot = new ArrayList<>();

  @Test
  void hotKeysAskedForDuringTheScan_areSettledAheadAndServedLocally_beforeTheScanEnds() {
    setUp(CoreConfig.Modes.DEFAULT, Set.of());
    startNode1sScan();

    List<Outcome> first = getAll(hot);
    for (int i = 0; i < HOT; i++) {
      Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, first.get(i));
      assertEquals(written.get(hot.get(i)), r.value().orElseThrow().version(), "hot key " + i);
    }
    ranges.runFor(5_000_000); // the pulled reads' commits to node 1 itself become durable
    long leaderOnly = sim.stats(1).readsLeaderOnly();
    List<Outcome> second = getAll(hot);
    assertEquals(
        leaderOnly + HOT, sim.stats(1).readsLeaderOnly(), "hot keys served from node 1's cells");
    for (int i = 0; i < HOT; i++) {
      Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, second.get(i));
      assertEquals(written.get(hot.get(i)), r.value().orElseThrow().version(), "hot key " + i);
    }
    assertTrue(
        sim.rangeScansCompleted(1) < 3, "served locally before range 1's scan reached the keys");
    CoreStats during = sim.stats(1);
    assertEquals(HOT, during.keysSettledByPull(), "each hot key pulled forward once");
    assertTrue(during.readsLeaderOnly() >= HOT, "the second reads were leader-only: " + during);

    sim.runUntil(() -> sim.rangeScansCompleted(1) == 3, 30_000_000_000L, "node 1 scanned");
    CoreStats after = sim.stats(1);
    assertEquals(HOT, after.keysSettledByPull());
    assertEquals(
        KEYS,
        after.keysSettledByScan() + after.keysSettledByPull(),
        "every key settled once: the scan skipped the pulled ones");
    assertTrue(after.pullSettleNanos() > 0);
  }

  @Test
  void withoutHotKeysFirst_theSameReadsGoToAQuorumUntilTheScanEnds() {
    setUp(new CoreConfig.Modes(true, 0, false), Set.of());
    startNode1sScan();
    getAll(hot);
    ranges.runFor(5_000_000);
    long messages = sim.messagesTotal();
    getAll(hot);
    assertTrue(sim.messagesTotal() > messages, "quorum reads while the range is unscanned");
    assertTrue(sim.rangeScansCompleted(1) < 3);
    sim.runUntil(() -> sim.rangeScansCompleted(1) == 3, 30_000_000_000L, "node 1 scanned");
    assertEquals(0, sim.stats(1).keysSettledByPull());
    assertEquals(KEYS, sim.stats(1).keysSettledByScan());
  }

  /**
   * A pull whose read fails (node 1 cut off from both other replicas meanwhile) does not settle its
   * key: the scan reads the key itself later, and only then is it served. A scan that skipped a
   * pulled key whose read did not answer would leave node 1's cell empty and answer "absent".
   */
  @Test
  void failedPull_isReadByTheScanLater_neverSkipped() {
    setUp(CoreConfig.Modes.DEFAULT, Set.of());
    startNode1sScan();
    Key key = hot.get(HOT - 1);
    ranges.isolate(1, true);
    Outcome cutOff = getAll(List.of(key)).get(0);
    assertTrue(!(cutOff instanceof Outcome.ReadResult), "no read answers while cut off: " + cutOff);
    assertEquals(0, sim.stats(1).keysSettledByPull(), "the failed pull settled nothing");
    ranges.isolate(1, false);
    sim.runUntil(() -> sim.rangeScansCompleted(1) == 3, 60_000_000_000L, "node 1 scanned");
    ranges.runFor(10_000_000);
    io.frsm.cell.Cell local = sim.durableCell(1, key);
    assertTrue(
        local != null && local.accepted() != null && local.accepted().chosen(),
        "the scan brought the key to node 1 after its pull failed: " + local);
    assertEquals(written.get(key).timestamp(), local.accepted().timestamp());
    Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, getAll(List.of(key)).get(0));
    assertEquals(written.get(key), r.value().orElseThrow().version());
    CoreStats stats = sim.stats(1);
    // The failed pull's retry and the key's own page may both read it: counted once or twice.
    assertTrue(stats.keysSettledByScan() + stats.keysSettledByPull() >= KEYS, "" + stats);
  }

  /**
   * The mutation the pull's quorum read guards against: a pulled key marked settled without it is
   * served from node 1's empty cell, absent although it was written.
   */
  @Test
  void sabotage_pullWithoutRead_servesAStaleAbsentValue() {
    setUp(CoreConfig.Modes.DEFAULT, Set.of(Sabotage.PULL_FORWARD_WITHOUT_READ));
    startNode1sScan();
    List<Outcome> first = getAll(hot);
    Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, first.get(HOT - 1));
    assertTrue(r.value().isEmpty(), "the broken pull serves node 1's missing cell: " + r);
  }

  private void setUp(CoreConfig.Modes modes, Set<Sabotage> sabotage) {
    ranges = new ScriptedRanges(modes, sabotage);
    sim = ranges.sim();
  }

  /**
   * Node 0 writes every key while node 1 is cut off, then node 1 takes every range over; returns
   * once node 1's scans of the three ranges started (each sent its first listing to 3 replicas).
   * The hot keys are the last {@link #HOT} of range 1 in scan order.
   */
  private void startNode1sScan() {
    for (int range = 0; range < 3; range++) {
      ranges.grant(0, range, 1);
    }
    sim.runUntil(() -> sim.rangeScansCompleted(0) == 3, 10_000_000_000L, "node 0 scanned");
    ranges.isolate(1, true);
    List<Key> range1 = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      Key key = key(i);
      Outcome o =
          ranges.run(0, new Operation.Create(key, ("v" + i).getBytes(StandardCharsets.US_ASCII)));
      written.put(key, assertInstanceOf(Outcome.Written.class, o).version());
      if (PLACEMENT.rangeOf(key) == 1) {
        range1.add(key);
      }
    }
    ranges.runFor(10_000_000);
    ranges.isolate(1, false);
    range1.sort(null);
    assertTrue(range1.size() > 2 * 256, "range 1 takes several pages: " + range1.size());
    hot.addAll(range1.subList(range1.size() - HOT, range1.size()));

    ranges.stopRenewing(0);
    long listingsBefore = sim.messages(Message.ListKeys.class);
    for (int range = 0; range < 3; range++) {
      ranges.grant(1, range, 2);
    }
    sim.runUntil(
        () -> sim.messages(Message.ListKeys.class) >= listingsBefore + 3 * 3,
        30_000_000_000L,
        "node 1's scans started");
  }

  private List<Outcome> getAll(List<Key> keys) {
    Outcome[] results = new Outcome[keys.size()];
    for (int i = 0; i < keys.size(); i++) {
      int slot = i;
      sim.submit(1, new Operation.Get(keys.get(i)), o -> results[slot] = o);
    }
    sim.runUntil(
        () -> java.util.Arrays.stream(results).allMatch(java.util.Objects::nonNull),
        sim.nowNanos() + 10_000_000_000L,
        "replies");
    return List.of(results);
  }

  private static Key key(int i) {
    return Key.of(("hot-first-" + i).getBytes(StandardCharsets.US_ASCII));
  }
}
