package io.frsm.testkit.sim;

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
import java.util.Arrays;
import java.util.List;

/**
 * A graceful restart between two hand-offs (docs/PROTOCOL.md "The durable base"), on three nodes
 * and one range, the coordination service played by hand: node 0 holds term 1 in leader-only mode
 * and writes one key, {@code h}, whose prepares and accepts to itself are lost (a lost local
 * delivery) — so its own cell holds the value only through its commit to itself, an unlogged hint,
 * as for a value it learned from a round its acceptor missed. It hands the range to node 1 (drain,
 * shipment: {@link Effect.BaseReached}, then the flush and the base record), crashes and restarts
 * at {@link CrashAt}, and while node 1 holds term 2 and writes other keys it is a replica again;
 * node 1 hands the range back with a shipment that does not name {@code h} (node 1 never wrote it),
 * node 0 is granted term 3 and reads every key. Node 0 may import only if it still holds {@code
 * h}'s value: a base restored without the flush serves {@code h} stale.
 */
final class DurableBaseScenario implements AutoCloseable {
  static final int RANGE = 0;
  private static final LeaseConfig LEASES = CounterWorkload.simLeases();

  /** Where node 0 crashes, counted in the base's two disk writes (the flush and the record). */
  enum CrashAt {
    /** No crash: the base lives on in memory, as before durable bases. */
    NEVER,
    /** Right after the shipment, before either write. */
    BEFORE_BOTH,
    /** After the first write, before the second (rule: flushed, no record yet). */
    BETWEEN,
    /** After both (rule: flushed and recorded). */
    AFTER_BOTH
  }

  /** What a run saw. */
  record Run(
      boolean enteredByHandOff,
      long restored,
      boolean recordLeftAfterTheGrant,
      long staleReads,
      long readsNotLeaderOnly,
      String first) {}

  private final Simulation sim;
  private final ScriptedLease lease;
  private final AcknowledgedWrites acked;
  private final DurableBases.Mode mode;
  private final List<HandOffShipment> shipments = new ArrayList<>();
  private Key hinted;
  private boolean reading;
  private long notLeaderOnly;

  DurableBaseScenario(long seed, DurableBases.Mode mode) {
    // Without the classification of the predecessor's values (docs/PROTOCOL.md "A killed holder:
    // covering its term"): with it, node 1's scan of term 2 finds h under node 0's term-1 ballot
    // and ships h too, and the import would hand node 0 the value its base lost. The base must
    // keep h by itself: that is what this scenario checks. (The simulator's coverage check, which
    // catches the dropped classification, is off here for the same reason; HandOffSimulationTest
    // and TermFloorTest have it.)
    CoreConfig config =
        Simulation.simConfig(3).toBuilder()
            .leases(LEASES)
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(true))
            .sabotage(java.util.Set.of(Sabotage.DROP_TERM_CLASSIFICATION))
            .build();
    this.sim = new Simulation(seed, FaultMix.calm(3), config, 1_000_000);
    sim.skipCoverageCheck();
    this.lease = new ScriptedLease(sim, LEASES);
    this.acked = new AcknowledgedWrites(sim);
    this.mode = mode;
    sim.setDurableBases(mode);
    // The graceful base alone: an entry base of term 1 (docs/PROTOCOL.md "A killed holder: covering
    // its term") would be restored after the crash points before the shipment's record, and with
    // the classification dropped above, node 1's shipment marked as covering term 1 would hand node
    // 0 a base that lacks h. KilledHolderScenarioTest tests the entry bases.
    sim.setEntryBaseRecords(false);
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.HandOffShipped s) {
            shipments.add(s.shipment());
          }
          if (node == 0
              && reading
              && effect instanceof Effect.Reply r
              && r.readMode() != io.frsm.consensus.core.ReadMode.LEADER_ONLY) {
            notLeaderOnly++;
          }
        });
    // Node 0's own acceptor never hears its prepares and accepts of h (lost local deliveries): its
    // cell gets h's values by commits only, and no promise of its rounds is logged there either.
    sim.setLocalFilter(
        (from, to, m) ->
            from == 0
                && (m instanceof Message.Accept || m instanceof Message.Prepare)
                && m.key().equals(hinted));
    // Nor anything of h from its peers (node 1's scan in term 2 would re-commit it there): what
    // node 0 holds of h at the end is what it kept through its restart.
    sim.setFilter(
        (from, to, m) ->
            to == 0
                && from != 0
                && (m instanceof Message.Request || m instanceof Message.Commit)
                && m.key().equals(hinted));
  }

  @Override
  public void close() {
    sim.close();
  }

  Run run(int keys, int changed, CrashAt crashAt) {
    lease.grant(0, 1);
    until(() -> sim.rangeScansCompleted(0) == 1, "node 0 leader-only in term 1");
    List<Key> all = acked.preloadChosen(keys);
    hinted = all.get(0);
    int[] pending = {0};
    acked.write(0, hinted, "v1", pending);
    until(() -> pending[0] == 0, "node 0's write of " + hinted);
    if (!Arrays.equals(acked.last(hinted), ("v1-" + hinted).getBytes(StandardCharsets.US_ASCII))) {
      throw new IllegalStateException("node 0's write of " + hinted + " was not acknowledged");
    }
    // Node 0 hands the range to node 1: the base's flush and record follow the shipment.
    long writesBefore = sim.durableBaseWrites();
    sim.input(0, new Input.HandOff(RANGE, 1));
    until(() -> shipments.size() == 1, "node 0's shipment");
    switch (crashAt) {
      case BEFORE_BOTH -> sim.crashAndRestart(0);
      case BETWEEN -> {
        until(() -> sim.durableBaseWrites() == writesBefore + 1, "the base's first write");
        sim.crashAndRestart(0);
      }
      case AFTER_BOTH -> {
        int writes =
            switch (mode) {
              case RECORD_WITHOUT_FLUSH -> 1;
              case OFF -> 0;
              default -> 2;
            };
        until(() -> sim.durableBaseWrites() == writesBefore + writes, "the base's writes");
        sim.crashAndRestart(0);
      }
      case NEVER -> {}
    }
    lease.release(0, 1);
    lease.grant(1, 2);
    until(() -> sim.rangeScansCompleted(1) == 1, "node 1 leader-only in term 2");
    for (Key key : all.subList(1, 1 + changed)) {
      acked.write(1, key, "v2", pending);
    }
    until(() -> pending[0] == 0, "node 1's writes");
    sim.input(1, new Input.HandOff(RANGE, 2));
    until(() -> shipments.size() == 2, "node 1's shipment");
    sim.input(0, new Input.ImportShipment(shipments.get(1)));
    lease.release(1, 2);
    long entered = sim.handOffsEntered();
    long scansBefore = sim.rangeScansCompleted(0);
    lease.grant(0, 3);
    boolean recordLeft = !sim.durableBases(0).isEmpty();
    until(
        () -> sim.handOffsEntered() > entered || sim.rangeScansCompleted(0) > scansBefore,
        "node 0 leader-only in term 3");
    boolean byHandOff = sim.handOffsEntered() > entered;
    // An entry can come before the term's first renewal answered: read once the lease is held, so
    // every read is served leader-only from node 0's own cells (what the base vouches for).
    long leaseHeld = sim.nowNanos() + LEASES.lease().toNanos() / 2;
    until(() -> sim.nowNanos() >= leaseHeld, "a renewal of term 3");
    String[] first = {null};
    reading = true;
    long stale = acked.staleReadsAtNode0(all, first);
    return new Run(
        byHandOff, sim.durableBasesRestored(), recordLeft, stale, notLeaderOnly, first[0]);
  }

  private void until(java.util.function.BooleanSupplier done, String what) {
    sim.runUntil(done, sim.nowNanos() + 3_600_000_000_000L, what);
  }
}
