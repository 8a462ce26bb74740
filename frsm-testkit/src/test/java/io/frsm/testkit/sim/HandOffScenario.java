package io.frsm.testkit.sim;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Sabotage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The natural leader's absence and return, step by step (docs/PROTOCOL.md "Hand-off instead of a
 * scan"), on three nodes and one range, the coordination service played by hand: node 0 holds term
 * 1 in leader-only mode over {@code keys} chosen keys, hands the range to node 1 (drain, shipment,
 * release, term 2), and is then away (cut from its peers) while node 1 writes {@code changed} of
 * the keys; back, it gets the range handed back (node 1 drains and ships term 2, node 0 imports,
 * node 1 releases, node 0 is granted term 3) and must serve every key as last acknowledged.
 *
 * <p>Around the hand-back the scenario adds the writes the unsafe shortcuts get wrong: one that is
 * in flight when the drain starts, and one submitted to node 1 after its shipment; both with node
 * 1's messages to node 0 dropped, as on a link that still flaps. Timings vary with the seed.
 */
final class HandOffScenario implements AutoCloseable {
  static final int RANGE = 0;
  private static final LeaseConfig LEASES = CounterWorkload.simLeases();

  /** What a run measured and saw. */
  /**
   * @param drainNanos the hand-back's drain: from {@code HandOff} at the stand-in to its shipment
   * @param catchUpNanos from the returning node's grant to its leader-only mode
   * @param handBackNanos from {@code HandOff} at the stand-in to the returning node's leader-only
   *     mode: the range refuses or waits for writes this long (includes the scenario's wait for its
   *     writes around the hand-back, which the dropped messages may delay by a hedge delay)
   */
  record Run(
      long drainNanos,
      long catchUpNanos,
      long handBackNanos,
      boolean enteredByHandOff,
      long keysShipped,
      int keysSettled,
      long staleReads,
      String first) {}

  private final long seed;
  private final Simulation sim;
  private final ScriptedLease lease;
  private final AcknowledgedWrites acked;
  private final boolean deliverShipment;
  private final boolean[] away = new boolean[3];
  private boolean dropFrom1To0;

  /** How late node 1's accept to itself of the key in flight arrives (0: on time). */
  private long ownAcceptLateNanos;

  private boolean ownAcceptDelayed;

  /** The key of the write in flight at the hand-back; its first accept starts the drain. */
  private Key inFlight;

  private boolean handBackStarted;
  private int drainKeys = -1;
  private long handBackAtNanos;
  private SimRandom random;
  private final List<HandOffShipment> shipments = new ArrayList<>();
  private final List<Effect.HandOffDeclined> declined = new ArrayList<>();

  /**
   * @param deliverShipment false: node 0 never gets node 1's shipment and scans (the baseline)
   */
  HandOffScenario(long seed, Set<Sabotage> sabotage, boolean deliverShipment) {
    // No cap: the scripted hand-back measures the drain itself, whatever its size.
    this(seed, sabotage, deliverShipment, CoreConfig.Modes.HAND_OFF_KEYS_LIMIT);
  }

  /**
   * @param handOffMaxKeys the cores' hand-off cap ({@link CoreConfig.Modes#handOffMaxKeys})
   */
  HandOffScenario(long seed, Set<Sabotage> sabotage, boolean deliverShipment, int handOffMaxKeys) {
    this.seed = seed;
    this.deliverShipment = deliverShipment;
    CoreConfig config =
        Simulation.simConfig(3).toBuilder()
            .leases(LEASES)
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(true).withHandOffMaxKeys(handOffMaxKeys))
            .sabotage(sabotage)
            .build();
    this.sim = new Simulation(seed, FaultMix.calm(3), config, 1_000_000);
    this.lease = new ScriptedLease(sim, LEASES);
    this.acked = new AcknowledgedWrites(sim);
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.HandOffShipped s) {
            shipments.add(s.shipment());
          } else if (effect instanceof Effect.HandOffDeclined d) {
            declined.add(d);
          }
        });
    sim.setFilter(
        (from, to, m) -> {
          if (from == 1 && m instanceof Message.Accept && m.key().equals(inFlight)) {
            // The drain starts while this accept is on its way: the round is still open.
            sim.schedule(1000L * random.between(0, 400), this::startHandBack);
          }
          return from != to && (away[from] || away[to] || (dropFrom1To0 && from == 1 && to == 0));
        });
  }

  /**
   * Makes node 1's accept to itself of the key written as the hand-back begins arrive {@code
   * micros} late, once: its local cell then still holds the older chosen value while the round is
   * open, and the round is chosen only when that accept lands (node 0 hears nothing from node 1).
   */
  HandOffScenario ownAcceptOfTheKeyInFlightLate(long micros) {
    this.ownAcceptLateNanos = 1000 * micros;
    sim.setLocalFilter(
        (from, to, m) -> {
          if (ownAcceptDelayed
              || ownAcceptLateNanos == 0
              || from != 1
              || !(m instanceof Message.Accept)
              || !m.key().equals(inFlight)) {
            return false;
          }
          ownAcceptDelayed = true;
          sim.schedule(ownAcceptLateNanos, () -> sim.input(1, new Input.Receive(1, m)));
          return true;
        });
    return this;
  }

  @Override
  public void close() {
    sim.close();
  }

  Run run(int keys, int changed) {
    // Term 1 at node 0, over an empty range: its scan is short; then the keys, chosen everywhere.
    lease.grant(0, 1);
    until(() -> sim.rangeScansCompleted(0) == 1, "node 0 leader-only in term 1");
    List<Key> all = acked.preloadChosen(keys);
    // Node 0 hands the range to node 1 and leaves.
    handOff(0, 1, 1);
    away[0] = true;
    until(() -> sim.rangeScansCompleted(1) == 1, "node 1 leader-only in term 2");
    random = new SimRandom(seed ^ 0x4A4D0FFL);
    List<Key> toChange = new ArrayList<>(all);
    java.util.Collections.shuffle(toChange, new java.util.Random(random.nextLong(Long.MAX_VALUE)));
    int[] pending = {0};
    for (Key key : toChange.subList(0, changed)) {
      acked.write(1, key, "v1", pending);
    }
    until(() -> pending[0] == 0, "node 1's writes");
    away[0] = false;
    // The hand-back: a write in flight as the drain starts, one sent after the shipment.
    dropFrom1To0 = true;
    inFlight = all.get(random.nextInt(all.size()));
    acked.write(1, inFlight, "v2", pending);
    sim.schedule(3_000_000, this::startHandBack); // if its accept was never sent
    until(() -> shipments.size() == 2, "node 1's shipment");
    long drain = sim.nowNanos() - handBackAtNanos;
    HandOffShipment shipment = shipments.get(1);
    acked.write(1, all.get(random.nextInt(all.size())), "v3", pending);
    until(() -> pending[0] == 0, "the writes around the hand-back");
    dropFrom1To0 = false;
    if (deliverShipment) {
      sim.input(0, new Input.ImportShipment(shipment));
    }
    lease.release(1, 2);
    long entered = sim.handOffsEntered();
    long granted = sim.nowNanos();
    lease.grant(0, 3);
    until(
        () -> sim.handOffsEntered() > entered || sim.rangeScansCompleted(0) == 2,
        "node 0 leader-only in term 3");
    long catchUp = sim.nowNanos() - granted;
    long handBack = sim.nowNanos() - handBackAtNanos;
    boolean byHandOff = sim.handOffsEntered() > entered;
    String[] first = {null};
    long stale = acked.staleReadsAtNode0(all, first);
    return new Run(
        drain, catchUp, handBack, byHandOff, shipment.entries().size(), drainKeys, stale, first[0]);
  }

  /** What {@link #declinedHandBack} saw. */
  record Declined(
      List<Effect.HandOffDeclined> declined,
      int shipments,
      boolean writeTakenAfterTheDecline,
      boolean scanned,
      long staleReads,
      String first) {}

  /**
   * As {@link #run}, but node 1 has more keys to settle in term 2 than the cores' cap (its second
   * writes of them are in flight as the hand-off begins): its hand-back is declined at once, it
   * goes on taking the range's writes, releases plainly, and node 0 scans.
   */
  Declined declinedHandBack(int keys, int changed) {
    return declinedHandBack(keys, changed, Integer.MAX_VALUE);
  }

  /**
   * As {@link #declinedHandBack(int, int)}, with node 1's agent asking with its own cap {@code
   * handBackCap} ({@link Input.HandOff#maxKeys}: the server's share of its drain budget).
   */
  Declined declinedHandBack(int keys, int changed, int handBackCap) {
    lease.grant(0, 1);
    until(() -> sim.rangeScansCompleted(0) == 1, "node 0 leader-only in term 1");
    List<Key> all = acked.preloadChosen(keys);
    handOff(0, 1, 1); // node 0 wrote nothing in term 1: within any cap, shipped
    until(() -> sim.rangeScansCompleted(1) == 1, "node 1 leader-only in term 2");
    int[] pending = {0};
    for (Key key : all.subList(0, changed)) {
      acked.write(1, key, "v1", pending);
    }
    until(() -> pending[0] == 0, "node 1's writes");
    // The same keys again, still in flight at the hand-off: their accepts are open, so the drain
    // would have to settle every one of them (rounds that ended chosen it ships as they are).
    for (Key key : all.subList(0, changed)) {
      acked.write(1, key, "v1b", pending);
    }
    int shipmentsBefore = shipments.size();
    sim.input(1, new Input.HandOff(RANGE, 2, handBackCap));
    until(() -> !declined.isEmpty(), "node 1's answer to the hand-off");
    until(() -> pending[0] == 0, "node 1's second writes");
    long writtenBefore = acked.values().stream().filter(v -> v[0] == 'v' && v[1] == '2').count();
    acked.write(1, all.get(0), "v2", pending); // the range still takes operations
    until(() -> pending[0] == 0, "the write after the decline");
    boolean taken =
        acked.values().stream().filter(v -> v[0] == 'v' && v[1] == '2').count() > writtenBefore;
    lease.release(1, 2);
    lease.grant(0, 3);
    until(() -> sim.rangeScansCompleted(0) == 2, "node 0's scan in term 3");
    String[] first = {null};
    long stale = acked.staleReadsAtNode0(all, first);
    return new Declined(
        List.copyOf(declined),
        shipments.size() - shipmentsBefore,
        taken,
        sim.handOffsEntered() == 0,
        stale,
        first[0]);
  }

  /**
   * Node 0 hands term 1 off, so its base is 1; then shipments of term 2 that a hostile or broken
   * peer could send reach it — a reserved key, keys out of order, a key twice — and then a sound
   * one. Returns how many of the three it refused, and of the sound one.
   */
  long[] hostileImports() {
    lease.grant(0, 1);
    until(() -> sim.rangeScansCompleted(0) == 1, "node 0 leader-only in term 1");
    handOff(0, 1, 1);
    AcceptedValue v = AcceptedValue.live(1, 1, new Ballot(1, 0, 0), new byte[] {1}, true);
    Key a = Key.of("a".getBytes(StandardCharsets.US_ASCII));
    Key b = Key.of("b".getBytes(StandardCharsets.US_ASCII));
    Key first = a.compareTo(b) < 0 ? a : b;
    Key second = first == a ? b : a;
    long before = sim.handOffsRefused(0);
    for (List<Key> keys :
        List.of(
            List.of(io.frsm.consensus.core.RangeTerm.cellKey(RANGE)),
            List.of(second, first),
            List.of(first, first))) {
      List<HandOffShipment.Entry> entries = new ArrayList<>();
      for (Key k : keys) {
        entries.add(new HandOffShipment.Entry(k, v));
      }
      sim.input(0, new Input.ImportShipment(new HandOffShipment(RANGE, 2, entries)));
    }
    long hostile = sim.handOffsRefused(0) - before;
    sim.input(
        0,
        new Input.ImportShipment(
            new HandOffShipment(
                RANGE,
                2,
                List.of(
                    new HandOffShipment.Entry(first, v), new HandOffShipment.Entry(second, v)))));
    return new long[] {hostile, sim.handOffsRefused(0) - before - hostile};
  }

  private void startHandBack() {
    if (!handBackStarted) {
      handBackStarted = true;
      handBackAtNanos = sim.nowNanos();
      inFlight = null;
      sim.input(1, new Input.HandOff(RANGE, 2));
      drainKeys = sim.handOffDrainKeys(1, RANGE, 2);
    }
  }

  /** The holder's agent: drain, shipment, release, and the successor's grant. */
  private void handOff(int from, int to, long term) {
    int before = shipments.size();
    sim.input(from, new Input.HandOff(RANGE, term));
    until(() -> shipments.size() > before, "node " + from + "'s shipment");
    if (deliverShipment) {
      sim.input(to, new Input.ImportShipment(shipments.get(before)));
    }
    lease.release(from, term);
    lease.grant(to, term + 1);
  }

  private void until(java.util.function.BooleanSupplier done, String what) {
    sim.runUntil(done, sim.nowNanos() + 3_600_000_000_000L, what);
  }
}
