package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What a range scan and a membership settle cost per key (docs/BENCHMARKS.md "Settle and scan
 * throughput"), counted in the simulator: messages of each kind, logged persists (on a real node a
 * commit-log append its group commit syncs) and hints, and the simulated time, for one range of
 * {@code frsm.sim.settleKeys} keys (default {@link #CI_KEYS}, many pages). Counts do not depend on
 * the machine's load; the simulated time is a round-trip count at a fixed one-way delay of {@link
 * #DELAY_MICROS} µs and {@link #PERSIST_MICROS} µs per persist, no faults.
 *
 * <p>Each run also checks what the scan or settle guarantees, key by key, so a batching or paging
 * change that loses a key fails here: after the settle, with every hint lost (all nodes crashed and
 * restarted), each key's value is logged at a quorum of the new voters; after the scan, the holder
 * holds every key's chosen value.
 */
class SettleCostTest {
  static final int CI_KEYS = 2_000;
  private static final long DELAY_MICROS = 1_000;
  private static final long PERSIST_MICROS = 100;
  private static final LeaseConfig LEASES = LeaseConfig.defaults();

  record Cost(
      String what,
      int keys,
      long simulatedNanos,
      Map<String, Long> messages,
      long loggedPersists,
      long hintPersists) {
    long messagesTotal() {
      return messages.values().stream().mapToLong(Long::longValue).sum();
    }

    String print() {
      StringBuilder perType = new StringBuilder();
      messages.forEach(
          (type, n) -> {
            if (n > 0) {
              perType.append(String.format(" %s %.2f", type, n / (double) keys));
            }
          });
      return String.format(
          "%s, %d keys: %.1f ms simulated (%.0f keys/s), per key: %.2f messages (%s ),"
              + " %.2f logged persists, %.2f hints",
          what,
          keys,
          simulatedNanos / 1e6,
          keys / (simulatedNanos / 1e9),
          messagesTotal() / (double) keys,
          perType.toString().trim(),
          loggedPersists / (double) keys,
          hintPersists / (double) keys);
    }
  }

  private static final List<Class<? extends Message>> COUNTED =
      List.of(
          Message.ListKeys.class,
          Message.KeysListed.class,
          Message.Read.class,
          Message.ReadReply.class,
          Message.Prepare.class,
          Message.Promise.class,
          Message.Accept.class,
          Message.Accepted.class,
          Message.Commit.class);

  @Test
  void membershipSettle_logsEveryKeyAtAQuorumOfTheNewVoters() {
    int keys = Integer.getInteger("frsm.sim.settleKeys", CI_KEYS);
    Cost cost = settle(keys);
    System.out.println(cost.print());
    assertTrue(cost.loggedPersists() >= 3L * keys, "each key re-committed at a quorum of 4");
  }

  /**
   * A paced settle ({@code consensus.settleKeysPerSecond}) starts its reads no faster than its
   * pace, and still settles every key (the same check as unpaced): its simulated time is the keys
   * over the pace, less the burst, and not much more.
   */
  @Test
  void pacedSettle_keepsItsPace_andStillLogsEveryKeyAtAQuorum() {
    int keys = CI_KEYS;
    int keysPerSecond = 500;
    Cost unpaced = settle(keys, 0);
    Cost paced = settle(keys, keysPerSecond);
    System.out.println(paced.print());
    double burstKeys = keysPerSecond * (50e-3); // SettlePace.BURST_NANOS
    double floorNanos = (keys - burstKeys - 1) / keysPerSecond * 1e9;
    assertTrue(
        paced.simulatedNanos() >= floorNanos,
        paced.simulatedNanos() / 1e6 + " ms: faster than the pace allows");
    assertTrue(
        paced.simulatedNanos() <= keys / (double) keysPerSecond * 1e9 + 1e9,
        paced.simulatedNanos() / 1e6 + " ms: the pace stalled the settle");
    assertTrue(
        unpaced.simulatedNanos() < floorNanos / 4,
        "unpaced it is far faster: " + unpaced.simulatedNanos() / 1e6 + " ms");
    assertEquals(
        unpaced.messages(), paced.messages(), "the pace changes when reads start, not what runs");
  }

  @Test
  void holderScan_bringsEveryChosenValueToTheHolder() {
    int keys = Integer.getInteger("frsm.sim.settleKeys", CI_KEYS);
    Cost cost = scan(keys);
    System.out.println(cost.print());
    assertEquals(0, cost.loggedPersists(), "every key was chosen: the scan logs nothing");
  }

  /**
   * Voters {0, 1, 2} hold every key chosen, logged at nodes 1 and 2 only; node 3 joins (learner,
   * then voter) and node 0 settles the range at the version whose voters are {0, 1, 2, 3}.
   */
  static Cost settle(int keys) {
    return settle(keys, 0);
  }

  /**
   * {@link #settle(int)} with the settling core's reads paced at {@code keysPerSecond} (0: not).
   */
  static Cost settle(int keys, int keysPerSecond) {
    Simulation sim =
        new Simulation(
            5,
            FaultMix.exact(3, DELAY_MICROS, PERSIST_MICROS),
            Simulation.simConfig(3).toBuilder().settleKeysPerSecond(keysPerSecond).build(),
            1_000_000);
    try {
      List<Effect.RangeSettled> settled = new ArrayList<>();
      sim.setMembershipAgent(
          new Simulation.MembershipAgent() {
            @Override
            public void emitted(int node, Effect effect) {
              if (effect instanceof Effect.RangeSettled s) {
                settled.add(s);
              }
            }

            @Override
            public void started(int node, long ringVersion) {}
          });
      List<Key> all = preload(sim, keys, 1, 2);
      Placement v0 = sim.ring().latest();
      int added = sim.addNode();
      Placement v1 = v0.withRange(1, 0, List.of(0, 1, 2), List.of(added));
      Placement v2 = v1.withRange(2, 0, List.of(0, 1, 2, added), List.of());
      sim.changePlacement(v1);
      sim.changePlacement(v2);
      sim.runUntilQuiet(sim.nowNanos() + 1_000_000_000L);

      long[] before = counts(sim);
      long start = sim.nowNanos();
      sim.input(0, new Input.SettleRange(0, v2.ringVersion()));
      sim.runUntil(() -> !settled.isEmpty(), sim.nowNanos() + 3_600_000_000_000L, "settle");
      long took = sim.nowNanos() - start;
      Cost cost = cost("membership settle (3 -> 4 voters)", keys, took, sim, before);
      assertEquals(List.of(new Effect.RangeSettled(0, v2.ringVersion(), true)), settled);

      // What the settle guarantees: each key logged at a quorum (3) of the 4 voters. Every node
      // crashes, so hints (commits taken unlogged) are gone and only logged cells count.
      for (int node = 0; node <= added; node++) {
        sim.crashAndRestart(node);
      }
      List<Key> short_ = new ArrayList<>();
      for (Key key : all) {
        int holders = 0;
        for (int node = 0; node <= added; node++) {
          Cell cell = sim.durableCell(node, key);
          if (cell != null && cell.accepted() != null && cell.accepted().timestamp() == 1) {
            holders++;
          }
        }
        if (holders < 3) {
          short_.add(key);
        }
      }
      assertEquals(
          List.of(),
          short_.subList(0, Math.min(10, short_.size())),
          short_.size() + " keys not logged at a quorum of the new voters after the settle");
      return cost;
    } finally {
      sim.close();
    }
  }

  /** Nodes 0 and 2 hold every key chosen; node 1, which holds none, is granted the range. */
  static Cost scan(int keys) {
    Simulation sim =
        new Simulation(
            11,
            FaultMix.exact(3, DELAY_MICROS, PERSIST_MICROS),
            Simulation.simConfig(3).toBuilder()
                .leases(LEASES)
                .placement(Placement.single(List.of(0, 1, 2)))
                .modes(new CoreConfig.Modes(true, 0, true))
                .build(),
            1_000_000);
    try {
      List<Key> all = preload(sim, keys, 0, 2);
      sim.input(1, new Input.TermGranted(0, 1));
      renew(sim, 1);
      // Timed from the scan's first listing: before it the grant waits out the lease's start.
      sim.runUntil(
          () -> sim.messages(Message.ListKeys.class) > 0,
          sim.nowNanos() + 10_000_000_000L,
          "node 1's scan started");
      long[] before = counts(sim);
      long start = sim.nowNanos();
      sim.runUntil(
          () -> sim.rangeScansCompleted(1) == 1,
          sim.nowNanos() + 3_600_000_000_000L,
          "node 1's scan done");
      long took = sim.nowNanos() - start;
      Cost cost = cost("holder's scan (all keys chosen)", keys, took, sim, before);
      // The instant the scan ends the range is served leader-only: every key read now must
      // answer its chosen value (a scan that ended before its last reads answered serves absent).
      List<Key> stale = new ArrayList<>();
      int[] answered = {0};
      for (Key key : all) {
        sim.submit(
            1,
            new io.frsm.consensus.core.Operation.Get(key),
            o -> {
              answered[0]++;
              if (!(o instanceof io.frsm.consensus.core.Outcome.ReadResult r)
                  || r.value().isEmpty()) {
                stale.add(key);
              }
            });
      }
      sim.runUntil(
          () -> answered[0] == all.size(), sim.nowNanos() + 10_000_000_000L, "reads answered");
      assertEquals(
          List.of(),
          stale.subList(0, Math.min(10, stale.size())),
          stale.size() + " keys read absent right after the scan");
      long settleBy = sim.nowNanos() + 100_000_000L; // the reads' commits to node 1 land
      sim.runUntil(() -> sim.nowNanos() >= settleBy, settleBy + 1, "100 ms more");
      List<Key> missing = new ArrayList<>();
      for (Key key : all) {
        Cell cell = sim.durableCell(1, key);
        if (cell == null || cell.accepted() == null || !cell.accepted().chosen()) {
          missing.add(key);
        }
      }
      assertEquals(
          List.of(),
          missing.subList(0, Math.min(10, missing.size())),
          missing.size() + " keys the holder lacks after its scan");
      return cost;
    } finally {
      sim.close();
    }
  }

  private static List<Key> preload(Simulation sim, int keys, int... holders) {
    Ballot ballot = new Ballot(1, 0, 0);
    List<Key> all = new ArrayList<>(keys);
    for (int i = 0; i < keys; i++) {
      Key key = Key.of(("settle-" + i).getBytes(StandardCharsets.US_ASCII));
      AcceptedValue accepted =
          AcceptedValue.live(1, 1, ballot, ("v" + i).getBytes(StandardCharsets.US_ASCII), false);
      for (AcceptedValue v : List.of(accepted, accepted.withChosen(true))) {
        // Accepted by a quorum, then marked chosen there (the safety checker sees it in order).
        for (int node : holders) {
          sim.preload(node, Cell.accepted(key, v, 0));
        }
      }
      all.add(key);
    }
    return all;
  }

  private static long[] counts(Simulation sim) {
    long[] c = new long[COUNTED.size() + 2];
    for (int i = 0; i < COUNTED.size(); i++) {
      c[i] = sim.messages(COUNTED.get(i));
    }
    c[COUNTED.size()] = sim.loggedPersists();
    c[COUNTED.size() + 1] = sim.hintPersists();
    return c;
  }

  private static Cost cost(String what, int keys, long nanos, Simulation sim, long[] before) {
    long[] after = counts(sim);
    Map<String, Long> messages = new LinkedHashMap<>();
    for (int i = 0; i < COUNTED.size(); i++) {
      messages.put(COUNTED.get(i).getSimpleName(), after[i] - before[i]);
    }
    return new Cost(
        what,
        keys,
        nanos,
        messages,
        after[COUNTED.size()] - before[COUNTED.size()],
        after[COUNTED.size() + 1] - before[COUNTED.size() + 1]);
  }

  private static void renew(Simulation sim, int node) {
    long sent = sim.monoNanos(node);
    sim.schedule(DELAY_MICROS * 1000, () -> sim.input(node, new Input.LeaseRenewed(0, 1, sent)));
    sim.schedule(LEASES.lease().toNanos() / 4, () -> renew(sim, node));
  }
}
