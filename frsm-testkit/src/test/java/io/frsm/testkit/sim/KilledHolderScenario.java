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
import java.util.Set;

/**
 * A killed natural leader's return by import (docs/PROTOCOL.md "A killed holder: covering its
 * term", steps 3 and 4), on three nodes and one range, the coordination service played by hand.
 *
 * <ol>
 *   <li>Node 1 holds term 1 and writes {@code s}; node 0 hears nothing of {@code s} from its peers
 *       (not in this term, not later), so it will hold {@code s}'s value only by what it learns
 *       itself.
 *   <li>Node 0 holds term 2: its scan learns {@code s}'s value and commits it to itself (an
 *       unlogged hint), it enters leader-only mode, and once that commit is in its cell it reaches
 *       the entry base of term 2 ({@link Effect.BaseReached} with {@code entry}: the flush, then
 *       the record). With {@code w} true it then writes key {@code w} with its own prepares and
 *       accepts of {@code w} lost (its acceptor never takes them): {@code w}'s value is chosen at
 *       nodes 1 and 2 only, and node 0 holds it only as an unlogged commit.
 *   <li>Node 0 is killed at {@link CrashAt} (counted in the entry base's two disk writes) and
 *       starts again on its disk: every unlogged commit not flushed is gone.
 *   <li>Node 1 is granted term 3. Either it scans (learning term 2's record: its shipment covers
 *       term 2 and names {@code w}), writes {@code changed} keys and hands back; or ({@code early})
 *       it hands back at once, before its scan completed: its shipment covers nothing.
 *   <li>Node 0 is offered that shipment, is granted term 4 and reads every key.
 * </ol>
 *
 * Node 0 may import only on a durable entry base of term 2 with a shipment that covers term 2; then
 * its cells hold {@code s} (the entry base's flush) and the import brings {@code w}. Anything else
 * must leave it scanning.
 */
final class KilledHolderScenario implements AutoCloseable {
  static final int RANGE = 0;
  private static final LeaseConfig LEASES = CounterWorkload.simLeases();

  /** Where node 0 is killed, counted in the entry base's two disk writes. */
  enum CrashAt {
    /** Right after the entry base is reached, before either write. */
    BEFORE_BOTH,
    /** After the first write, before the second (rule: flushed, no record yet). */
    BETWEEN,
    /** After both (rule: flushed and recorded). */
    AFTER_BOTH
  }

  /** What a run saw. */
  record Run(
      boolean enteredByImport,
      long entryBasesRestored,
      boolean shipmentCovered,
      long staleReads,
      long readsNotLeaderOnly,
      String first) {}

  private final Simulation sim;
  private final ScriptedLease lease;
  private final AcknowledgedWrites acked;
  private final DurableBases.Mode mode;
  private final List<HandOffShipment> shipments = new ArrayList<>();
  private final Set<Key> unheard = new java.util.HashSet<>();
  private Key selfLost;
  private long entryBaseWrites = -1;
  private boolean reading;
  private long notLeaderOnly;

  KilledHolderScenario(long seed, DurableBases.Mode mode, Set<Sabotage> sabotage) {
    CoreConfig config =
        Simulation.simConfig(3).toBuilder()
            .leases(LEASES)
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(true))
            .sabotage(sabotage)
            .build();
    this.sim = new Simulation(seed, FaultMix.calm(3), config, 1_000_000);
    this.lease = new ScriptedLease(sim, LEASES);
    this.acked = new AcknowledgedWrites(sim);
    this.mode = mode;
    sim.setDurableBases(mode);
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.HandOffShipped s) {
            shipments.add(s.shipment());
          }
          if (node == 0
              && effect instanceof Effect.BaseReached b
              && b.entry()
              && b.term() == 2
              && entryBaseWrites < 0) {
            entryBaseWrites = sim.durableBaseWrites();
          }
          if (node == 0
              && reading
              && effect instanceof Effect.Reply r
              && r.readMode() != io.frsm.consensus.core.ReadMode.LEADER_ONLY) {
            notLeaderOnly++;
          }
        });
    // Node 0's own acceptor never takes its prepares and accepts of w: w is chosen without it.
    sim.setLocalFilter(
        (from, to, m) ->
            from == 0
                && (m instanceof Message.Accept || m instanceof Message.Prepare)
                && m.key().equals(selfLost));
    // Nothing of s and w reaches node 0 from its peers (node 1's writes, reads' repairs, scans'
    // re-commits): what node 0 holds of them is what it learned itself and kept, or imported.
    sim.setFilter(
        (from, to, m) ->
            to == 0
                && from != 0
                && (m instanceof Message.Request || m instanceof Message.Commit)
                && unheard.contains(m.key()));
  }

  @Override
  public void close() {
    sim.close();
  }

  /**
   * @param keys preloaded keys (node 1's scan of term 3 pages through them)
   * @param changed keys node 1 writes in term 3 (not with {@code early})
   * @param writeW whether node 0 writes {@code w} after its entry base (only with {@link
   *     CrashAt#AFTER_BOTH}: the write comes after the record)
   * @param early whether node 1 hands back before its scan completed (its shipment covers nothing)
   */
  Run run(int keys, int changed, CrashAt crashAt, boolean writeW, boolean early) {
    List<Key> all = acked.preloadChosen(keys);
    List<Key> sorted = all.stream().sorted().toList();
    // The greatest key: node 0's scan reads it last, so its commit is still on its way as the
    // range enters leader-only mode — what the entry base must wait for.
    Key s = sorted.get(sorted.size() - 1);
    // Next to it: an early hand-back ships before node 1's scan could have reached it.
    Key w = sorted.get(sorted.size() - 2);
    unheard.add(s);
    unheard.add(w);
    int[] pending = {0};

    lease.grant(1, 1);
    until(() -> sim.rangeScansCompleted(1) == 1, "node 1 leader-only in term 1");
    acked.write(1, s, "v1", pending);
    until(() -> pending[0] == 0, "node 1's write of " + s);
    expectWritten(s, "v1");
    lease.release(1, 1);

    lease.grant(0, 2);
    until(() -> sim.rangeScansCompleted(0) == 1, "node 0 leader-only in term 2");
    until(() -> entryBaseWrites >= 0, "node 0's entry base of term 2");
    long at = entryBaseWrites;
    switch (crashAt) {
      case BEFORE_BOTH -> {}
      case BETWEEN ->
          until(() -> sim.durableBaseWrites() == at + 1, "the entry base's first write");
      case AFTER_BOTH -> {
        int writes = mode == DurableBases.Mode.RECORD_WITHOUT_FLUSH ? 1 : 2;
        until(() -> sim.durableBaseWrites() == at + writes, "the entry base's writes");
      }
    }
    if (writeW) {
      selfLost = w;
      acked.write(0, w, "v2", pending);
      until(() -> pending[0] == 0, "node 0's write of " + w);
      expectWritten(w, "v2");
    }
    sim.crashAndRestart(0); // killed: no hand-off, unflushed commits gone
    lease.release(0, 2);

    lease.grant(1, 3);
    if (early) {
      sim.input(1, new Input.HandOff(RANGE, 3));
    } else {
      until(() -> sim.rangeScansCompleted(1) == 2, "node 1 leader-only in term 3");
      for (Key key : sorted.subList(0, changed)) {
        acked.write(1, key, "v3", pending);
      }
      until(() -> pending[0] == 0, "node 1's writes");
      sim.input(1, new Input.HandOff(RANGE, 3));
    }
    until(() -> shipments.stream().anyMatch(x -> x.term() == 3), "node 1's shipment");
    HandOffShipment shipment =
        shipments.stream().filter(x -> x.term() == 3).findFirst().orElseThrow();
    sim.input(0, new Input.ImportShipment(shipment));
    lease.release(1, 3);
    long entered = sim.handOffsEntered();
    long scansBefore = sim.rangeScansCompleted(0);
    lease.grant(0, 4);
    until(
        () -> sim.handOffsEntered() > entered || sim.rangeScansCompleted(0) > scansBefore,
        "node 0 leader-only in term 4");
    boolean byImport = sim.handOffsEntered() > entered;
    long leaseHeld = sim.nowNanos() + LEASES.lease().toNanos() / 2;
    until(() -> sim.nowNanos() >= leaseHeld, "a renewal of term 4");
    String[] first = {null};
    reading = true;
    long stale = acked.staleReadsAtNode0(all, first);
    return new Run(
        byImport,
        sim.durableBasesRestored(),
        shipment.coversTerm() == 2,
        stale,
        notLeaderOnly,
        first[0]);
  }

  private void expectWritten(Key key, String tag) {
    if (!Arrays.equals(acked.last(key), (tag + "-" + key).getBytes(StandardCharsets.US_ASCII))) {
      throw new IllegalStateException("the write of " + key + " was not acknowledged");
    }
  }

  private void until(java.util.function.BooleanSupplier done, String what) {
    sim.runUntil(done, sim.nowNanos() + 3_600_000_000_000L, what);
  }
}
