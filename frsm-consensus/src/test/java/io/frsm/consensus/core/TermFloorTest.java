package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * docs/PROTOCOL.md "A killed holder: covering its term", steps 1–2: a holder's ballots are floored
 * at its term's round {@code R0}, the replicas keep the term's record and name the previous one in
 * their acknowledgement, and a successor counts a key whose value carries one of the predecessor's
 * ballots as written, so its shipment, marked as covering that term, names it.
 */
class TermFloorTest {
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final Key TERM_KEY = RangeTerm.cellKey(0);
  private static final List<Integer> NODES = List.of(0, 1, 2);

  private static CoreConfig config(Set<Sabotage> sabotage) {
    CoreConfig.Builder b =
        CoreConfig.builder(Placement.single(NODES))
            .leases(LeaseConfig.defaults())
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(true));
    return b.sabotage(sabotage).build();
  }

  // ---- The replicas' records ------------------------------------------------------------------

  private final Map<Key, Cell> durable = new HashMap<>();
  private NodeCore replica = new NodeCore(0, 1, config(Set.of()), durable::get, bound -> 0);
  private final Now now = new Now(1_000_000, 0);

  /** Delivers {@code m} from {@code from}, carrying out its persists; what the replica sent. */
  private List<Message> deliver(int from, Message m) {
    List<Effect> effects = new ArrayList<>(replica.step(now, new Input.Receive(from, m)));
    List<Message> sent = new ArrayList<>();
    for (int i = 0; i < effects.size(); i++) {
      Effect e = effects.get(i);
      if (e instanceof Effect.Persist p) {
        durable.merge(p.delta().key(), p.delta(), CellMerge::merge);
        effects.addAll(replica.step(now, new Input.PersistDone(p.persistId())));
      } else if (e instanceof Effect.Send s) {
        sent.add(s.message());
      }
    }
    return sent;
  }

  /** Node {@code from} (boot {@code boot}) persists {@code term} with {@code floor}; the ack. */
  private Message.TermPersisted persist(int from, int boot, long term, long floor) {
    Message m = new Message.TermPersist(TERM_KEY, new RoundId(from, boot, term), 0, term, 0, floor);
    List<Message> sent = deliver(from, m);
    assertEquals(1, sent.size(), "one answer: " + sent);
    return assertInstanceOf(Message.TermPersisted.class, sent.get(0));
  }

  @Test
  void aReplicaKeepsEachTermsRecord_andNamesThePreviousOne_acrossARestartAndAResend() {
    assertNull(persist(1, 4, 1, 100).previous(), "nothing held before term 1");
    TermRecord first = new TermRecord(1, 1, 4, 100);
    assertEquals(first, RangeTerm.recordOf(durable.get(TERM_KEY)));
    assertEquals(first, persist(2, 7, 2, 900).previous());
    replica = new NodeCore(0, 2, config(Set.of()), durable::get, bound -> 0);
    assertEquals(first, persist(2, 7, 2, 900).previous(), "a resend after a restart");
    assertEquals(2, RangeTerm.termOf(durable.get(TERM_KEY)));
    assertEquals(new TermRecord(2, 2, 7, 900), RangeTerm.recordOf(durable.get(TERM_KEY)));
  }

  @Test
  void aTermRaisedByAListingFirst_getsItsRecordWhenThePersistComes() {
    persist(1, 4, 1, 100);
    deliver(
        2,
        new Message.ListKeys(
            TERM_KEY, new RoundId(2, 7, 9), 0, 2, Long.MIN_VALUE, Long.MAX_VALUE, null, 16));
    assertEquals(2, RangeTerm.termOf(durable.get(TERM_KEY)));
    assertNull(RangeTerm.recordOf(durable.get(TERM_KEY)), "a listing raises the term alone");
    // The listing raised term 2 alone; the persist of term 2 then writes its record.
    assertEquals(new TermRecord(1, 1, 4, 100), persist(2, 7, 2, 900).previous());
    assertEquals(new TermRecord(2, 2, 7, 900), RangeTerm.recordOf(durable.get(TERM_KEY)));
  }

  @Test
  void aPersistWithoutAFloor_writesTheTermAsBefore_andNamesNothing() {
    Message m = new Message.TermPersist(TERM_KEY, new RoundId(1, 1, 0), 0, 3);
    List<Effect> effects = replica.step(now, new Input.Receive(1, m));
    Effect.Persist p = (Effect.Persist) effects.get(0);
    assertEquals(RangeTerm.termCell(0, 3, p.delta().writeTimeMs()), p.delta(), "format unchanged");
    assertNull(p.delta().accepted());
  }

  @Test
  void termCells_oldOnesHaveNoRecord_malformedOnesTeachNothing_theHigherTermsRecordWins() {
    Cell old = RangeTerm.termCell(0, 5, 1);
    assertEquals(5, RangeTerm.termOf(old));
    assertNull(RangeTerm.recordOf(old));
    TermRecord r5 = new TermRecord(5, 1, 2, 300);
    TermRecord r6 = new TermRecord(6, 2, 9, 700);
    Cell c5 = RangeTerm.termCell(0, 0, r5, null, 1);
    Cell c6 = RangeTerm.termCell(0, 0, r6, r5, 2);
    Cell merged = CellMerge.merge(CellMerge.merge(old, c6), c5);
    assertEquals(6, RangeTerm.termOf(merged));
    assertEquals(r6, RangeTerm.recordOf(merged));
    assertEquals(r5, RangeTerm.previousOf(merged));
    // A term raised past the record (a listing): the record is no longer the term's own.
    Cell raised = CellMerge.merge(c6, RangeTerm.termCell(0, 7, 3));
    assertNull(RangeTerm.recordOf(raised));
    assertEquals(r6, RangeTerm.storedRecord(raised));
    // Bytes that are not a record: none.
    byte[] v = c6.accepted().valueCopy();
    v[0] = 9;
    Cell foreign =
        new Cell(
            TERM_KEY,
            new Ballot(6, 0, 0),
            AcceptedValue.live(6, 0, new Ballot(6, 0, 0), v, false),
            null,
            1);
    assertNull(RangeTerm.recordOf(foreign));
    assertNull(RangeTerm.previousOf(foreign));
  }

  @Test
  void aTermRecord_coversExactlyItsHoldersIncarnationAtOrAboveTheFloor() {
    TermRecord r = new TermRecord(4, 1, 3, 1_000);
    assertTrue(r.covers(new Ballot(1_000, 1, 3)));
    assertTrue(r.covers(new Ballot(5_000, 1, 3)));
    assertEquals(false, r.covers(new Ballot(999, 1, 3)), "below the floor: an earlier term");
    assertEquals(false, r.covers(new Ballot(5_000, 2, 3)), "another node");
    assertEquals(false, r.covers(new Ballot(5_000, 1, 4)), "another incarnation");
    assertThrows(IllegalArgumentException.class, () -> new TermRecord(4, 1, 3, 0));
  }

  // ---- The floor at the holder, the classification at the successor -------------------------

  private static Outcome run(CoreCluster c, int node, Operation op) {
    long id = c.submit(node, op);
    for (int i = 0; i < 10_000 && c.outcome(id) == null; i++) {
      c.advance(CoreConfig.DEFAULT_ROUND_TIMEOUT.toNanos() / 10);
    }
    assertNotNull(c.outcome(id), "no answer to " + op);
    return c.outcome(id);
  }

  /** {@code node} is granted {@code term} (no wait: the grant says no earlier lease) and renews. */
  private static void take(CoreCluster c, int node, long term) {
    long scans = c.core(node).rangeScansCompleted();
    c.input(node, new Input.TermGranted(0, term, true));
    c.input(node, new Input.LeaseRenewed(0, term, c.now().monoNanos()));
    for (int i = 0; i < 100 && c.core(node).rangeScansCompleted() == scans; i++) {
      c.advance(1_000_000);
      c.input(node, new Input.LeaseRenewed(0, term, c.now().monoNanos()));
    }
    assertEquals(scans + 1, c.core(node).rangeScansCompleted(), "node " + node + " scanned");
  }

  private static long floorSent(CoreCluster c, int from, long term) {
    long floor = -1;
    for (CoreCluster.Sent s : c.sent) {
      if (s.from() == from && s.message() instanceof Message.TermPersist p && p.term() == term) {
        floor = p.floorRound();
      }
    }
    return floor;
  }

  private static HandOffShipment handOff(CoreCluster c, int node, long term, int maxKeys) {
    c.input(node, new Input.HandOff(0, term, maxKeys));
    for (int i = 0; i < 1_000; i++) {
      for (CoreCluster.Notice n : c.noticed) {
        if (n.node() == node && n.effect() instanceof Effect.HandOffShipped s) {
          return s.shipment();
        }
      }
      c.advance(CoreConfig.DEFAULT_ROUND_TIMEOUT.toNanos() / 10);
    }
    throw new AssertionError("no shipment");
  }

  /**
   * Node 0 writes k in term 1, then in term 2 (the wall clock standing still: below the rounds it
   * already proposed); node 1 takes term 3 without writing k. Returns node 1's shipment of term 3.
   */
  private static HandOffShipment killedHoldersTerm_thenTheSuccessorsShipment(
      CoreCluster c, List<Long> roundsInTermTwo) {
    return killedHoldersTerm_thenTheSuccessorsShipment(c, roundsInTermTwo, Integer.MAX_VALUE);
  }

  private static HandOffShipment killedHoldersTerm_thenTheSuccessorsShipment(
      CoreCluster c, List<Long> roundsInTermTwo, int maxKeys) {
    take(c, 0, 1);
    assertEquals(c.now().wallMicros(), floorSent(c, 0, 1), "term 1's floor: the wall clock");
    Version v =
        assertInstanceOf(Outcome.Written.class, run(c, 0, new Operation.Create(K, new byte[] {1})))
            .version();
    v =
        assertInstanceOf(Outcome.Written.class, run(c, 0, new Operation.Cas(K, v, new byte[] {2})))
            .version();
    long highest = 0;
    for (CoreCluster.Sent s : c.sent) {
      if (s.from() == 0 && s.message() instanceof Message.Prepare p) {
        highest = Math.max(highest, p.ballot().round());
      }
    }
    take(c, 0, 2);
    long floor = floorSent(c, 0, 2);
    assertEquals(highest + 1, floor, "above every round proposed, though the clock stood still");
    assertTrue(floor > c.now().wallMicros());
    int from = c.sent.size();
    assertInstanceOf(Outcome.Written.class, run(c, 0, new Operation.Cas(K, v, new byte[] {3})));
    for (CoreCluster.Sent s : c.sent.subList(from, c.sent.size())) {
      if (s.from() == 0 && s.message() instanceof Message.Prepare p) {
        roundsInTermTwo.add(p.ballot().round());
      } else if (s.from() == 0 && s.message() instanceof Message.Accept a) {
        roundsInTermTwo.add(a.ballot().round());
      }
    }
    take(c, 1, 3);
    return handOff(c, 1, 3, maxKeys);
  }

  @Test
  void theHoldersBallotsStayAtOrAboveTheFloor_andTheSuccessorsShipmentCoversTheTerm() {
    CoreCluster c = new CoreCluster(3, config(Set.of()));
    List<Long> rounds = new ArrayList<>();
    HandOffShipment s = killedHoldersTerm_thenTheSuccessorsShipment(c, rounds);
    long floor = floorSent(c, 0, 2);
    assertTrue(!rounds.isEmpty(), "term 2 wrote k");
    for (long r : rounds) {
      assertTrue(r >= floor, "round " + r + " of term 2 below its floor " + floor);
    }
    assertEquals(2, s.coversTerm(), "the scan of term 3 completed with term 2's record known");
    assertEquals(List.of(K), s.entries().stream().map(HandOffShipment.Entry::key).toList());
    assertEquals(1, c.core(1).handOffKeysClassified(), "k counted for term 2's ballot");
  }

  @Test
  void aKeyOfThePredecessorsTerm_isShippedButNotCountedAgainstTheDrainsCap() {
    CoreCluster c = new CoreCluster(3, config(Set.of()));
    HandOffShipment s = killedHoldersTerm_thenTheSuccessorsShipment(c, new ArrayList<>(), 0);
    assertEquals(
        0, c.core(1).handOffsDeclined(), "node 1 wrote nothing in term 3: a cap of 0 fits");
    assertEquals(2, s.coversTerm());
    assertEquals(List.of(K), s.entries().stream().map(HandOffShipment.Entry::key).toList());
    assertTrue(s.entries().get(0).chosen().chosen(), "k ships its chosen value");
  }

  @Test
  void withoutTheClassification_theCoveringShipmentMissesTheKeyChosenInTheTerm() {
    CoreCluster c = new CoreCluster(3, config(Set.of(Sabotage.DROP_TERM_CLASSIFICATION)));
    HandOffShipment s = killedHoldersTerm_thenTheSuccessorsShipment(c, new ArrayList<>());
    assertEquals(2, s.coversTerm());
    assertEquals(List.of(), s.entries(), "k, chosen in term 2, is missing");
  }

  @Test
  void withHandOffsOff_noFloorIsSent_andNothingIsCovered() {
    CoreCluster c =
        new CoreCluster(
            3, CoreConfig.builder(Placement.single(NODES)).leases(LeaseConfig.defaults()).build());
    take(c, 0, 1);
    assertEquals(0, floorSent(c, 0, 1));
    for (CoreCluster.Sent s : c.sent) {
      if (s.message() instanceof Message.TermPersisted t) {
        assertNull(t.previous());
      }
    }
  }
}
