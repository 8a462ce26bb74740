package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Cell;
import io.frsm.cell.CellKind;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Delete phase 2 (purge) over a 3-node simulated cluster. */
class DeletePurgeTest {
  private static final Key KEY = Key.of("doomed".getBytes(StandardCharsets.US_ASCII));
  private Simulation sim;
  private boolean isolateNode2;

  @BeforeEach
  void setUp() {
    sim = new Simulation(5, FaultMix.exact(3, 1_000, 100), Simulation.simConfig(3), 1_000_000);
    sim.setFilter((from, to, message) -> isolateNode2 && (to == 2 || from == 2));
  }

  private Outcome run(int node, Operation op) {
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    return result[0];
  }

  private void runFor(long nanos) {
    long until = sim.nowNanos() + nanos;
    sim.runUntil(() -> sim.nowNanos() >= until, until + 1, "time to pass");
  }

  private Version createThenDelete() {
    Version created =
        assertInstanceOf(
                Outcome.Written.class,
                run(0, new Operation.Create(KEY, "v".getBytes(StandardCharsets.US_ASCII))))
            .version();
    runFor(50_000_000);
    Outcome.Deleted deleted =
        assertInstanceOf(Outcome.Deleted.class, run(0, new Operation.Delete(KEY, created)));
    assertEquals(created.next(), deleted.version());
    return deleted.version();
  }

  private void assertPurged(int node, Version deleted) {
    Cell cell = sim.durableCell(node, KEY);
    PurgeMark mark = cell.purge();
    assertTrue(
        mark != null && mark.epoch() == deleted.epoch() && mark.timestamp() == deleted.timestamp(),
        "node " + node + " purge mark " + mark);
    assertEquals(CellKind.DELETE_FOR_CELL, cell.kind(), "node " + node);
    assertTrue(cell.purgeScheduled(), "node " + node);
  }

  @Test
  void deleteAckedByAllReplicas_everyReplicaCarriesThePurgeMark() {
    Version deleted = createThenDelete();
    sim.runUntilQuiet(sim.nowNanos() + 1_000_000_000L);
    for (int node = 0; node < 3; node++) {
      assertPurged(node, deleted);
    }
    assertEquals(3, sim.purgesChecked());
  }

  @Test
  void deleteAckedByOnlyAQuorum_leavesNoPurgeMark_untilTheLastReplicaAcks() {
    Version created =
        assertInstanceOf(
                Outcome.Written.class,
                run(0, new Operation.Create(KEY, "v".getBytes(StandardCharsets.US_ASCII))))
            .version();
    runFor(50_000_000);
    isolateNode2 = true;
    assertInstanceOf(Outcome.Deleted.class, run(0, new Operation.Delete(KEY, created)));
    runFor(500_000_000); // many re-drive periods, none reaching node 2
    for (int node = 0; node < 3; node++) {
      assertNull(sim.durableCell(node, KEY).purge(), "node " + node + " purged early");
    }
    // The paper's DeletedCellTombstoned: accepted by a quorum, not by every replica, so kept.
    assertEquals(CellKind.DELETED_CELL_TOMBSTONED, sim.durableCell(0, KEY).kind());
    assertEquals(CellKind.DELETED_CELL_TOMBSTONED, sim.durableCell(1, KEY).kind());
    assertEquals(CellKind.LIVE, sim.durableCell(2, KEY).kind());

    isolateNode2 = false; // node 2 is reachable again: the background completion finishes phase 1
    runFor(500_000_000);
    for (int node = 0; node < 3; node++) {
      assertPurged(node, created.next());
    }
  }

  @Test
  void purgesLostOnTheWay_areSentAgain_untilTheReplicaCarriesTheMark() {
    boolean[] dropPurgesTo2 = {true};
    sim.setFilter(
        (from, to, message) -> dropPurgesTo2[0] && to == 2 && message instanceof Message.Purge);
    Version deleted = createThenDelete();
    sim.runUntil(
        () -> sim.durableCell(0, KEY).purge() != null && sim.durableCell(1, KEY).purge() != null,
        sim.nowNanos() + 1_000_000_000L,
        "the purge at nodes 0 and 1");
    assertNull(sim.durableCell(2, KEY).purge(), "node 2's purge was dropped");
    dropPurgesTo2[0] = false;
    runFor(5_000_000_000L); // past every resend's back-off
    for (int node = 0; node < 3; node++) {
      assertPurged(node, deleted);
    }
    assertEquals(3, sim.purgesChecked(), "a replica holding the mark writes no resent purge");
  }

  @Test
  void purgesLostForGood_areSentABoundedNumberOfTimes() {
    int[] purgesTo2 = {0};
    sim.setFilter(
        (from, to, message) -> {
          boolean purgeTo2 = to == 2 && message instanceof Message.Purge;
          if (purgeTo2) {
            purgesTo2[0]++;
          }
          return purgeTo2;
        });
    createThenDelete();
    runFor(60_000_000_000L);
    assertEquals(1 + 3, purgesTo2[0], "the purge and DeleteCompletion.PURGE_RESENDS resends");
    assertNull(sim.durableCell(2, KEY).purge());
    assertEquals(CellKind.DELETED_CELL_TOMBSTONED, sim.durableCell(2, KEY).kind());
  }

  @Test
  void recreatedWhilePhaseOneWaits_theOldDeletesPurgeMarkLeavesTheNewValueLive() {
    Version created =
        assertInstanceOf(
                Outcome.Written.class,
                run(0, new Operation.Create(KEY, "v".getBytes(StandardCharsets.US_ASCII))))
            .version();
    runFor(50_000_000);
    isolateNode2 = true;
    assertInstanceOf(Outcome.Deleted.class, run(0, new Operation.Delete(KEY, created)));
    Version again =
        assertInstanceOf(
                Outcome.Written.class,
                run(1, new Operation.Create(KEY, "again".getBytes(StandardCharsets.US_ASCII))))
            .version();
    isolateNode2 = false;
    runFor(500_000_000);
    for (int node = 0; node < 2; node++) {
      Cell cell = sim.durableCell(node, KEY);
      assertEquals(CellKind.LIVE, cell.kind(), "node " + node + ": " + cell);
      assertEquals(again.epoch(), cell.accepted().epoch());
    }
    Outcome.ReadResult read =
        assertInstanceOf(Outcome.ReadResult.class, run(2, new Operation.Get(KEY)));
    assertEquals(again, read.value().orElseThrow().version());
  }
}
