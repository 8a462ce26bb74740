package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.ReadMode;
import io.frsm.consensus.core.Sabotage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Leases and leader-only reads on a fault-free 3-node cluster, with the coordination service's
 * inputs fed by hand: Table 2's leader-only read (0 messages; leader 1 read, 0 writes; followers
 * nothing), the successor's wait and term persist before its first accept, and the fall-back to a
 * quorum read without the lease.
 */
class LeaderOnlyReadTest {
  private static final long DELAY_MICROS = 1_000;
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final LeaseConfig LEASES = LeaseConfig.defaults(); // L = 2 s, one range

  private Simulation sim;
  private final List<String> events = new ArrayList<>();
  private final long[] renewUntil = new long[3];
  private final List<Effect.LeaseReleased> releases = new ArrayList<>();
  private final List<Effect.Reply> replies = new ArrayList<>();

  @BeforeEach
  void setUp() {
    sim = newSimulation(CoreConfig.Modes.DEFAULT);
  }

  private Simulation newSimulation(CoreConfig.Modes modes) {
    return newSimulation(modes, Set.of());
  }

  private Simulation newSimulation(CoreConfig.Modes modes, Set<Sabotage> sabotage) {
    Simulation sim =
        new Simulation(
            1,
            FaultMix.exact(3, DELAY_MICROS, 0),
            Simulation.simConfig(3).toBuilder()
                .leases(LEASES)
                .modes(modes)
                .sabotage(sabotage)
                .build(),
            1_000_000);
    sim.setLeaseAgent((node, effect) -> releases.add((Effect.LeaseReleased) effect));
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.Reply r) {
            replies.add(r);
          }
          if (effect instanceof Effect.Send s && s.to() != node) {
            String type = s.message().getClass().getSimpleName();
            if (type.equals("Accept") || type.equals("TermPersist")) {
              events.add(type + " n" + node + " @" + sim.monoNanos(node));
            }
          }
        });
    return sim;
  }

  /** The service grants {@code term} to {@code node}, which then renews every L/4 until told. */
  private void grant(int node, long term, long renewForNanos) {
    sim.input(node, new Input.TermGranted(0, term));
    renewUntil[node] = sim.nowNanos() + renewForNanos;
    renew(node, term);
  }

  /** As {@link #grant}, from a grant that found the predecessor's release mark. */
  private void grantAfterRelease(int node, long term, long renewForNanos) {
    sim.input(node, new Input.TermGranted(0, term, true));
    renewUntil[node] = sim.nowNanos() + renewForNanos;
    renew(node, term);
  }

  /** The node's agent stops renewing {@code term}, releases it, and gets the core's answer. */
  private Effect.LeaseReleased release(int node, long term) {
    renewUntil[node] = 0;
    int before = releases.size();
    sim.input(node, new Input.ReleaseLease(0, term));
    sim.runUntil(() -> releases.size() > before, sim.nowNanos() + 1_000_000_000L, "release");
    return releases.get(before);
  }

  private void renew(int node, long term) {
    if (sim.nowNanos() <= renewUntil[node]) {
      long sent = sim.monoNanos(node);
      sim.schedule(
          DELAY_MICROS * 1000, () -> sim.input(node, new Input.LeaseRenewed(0, term, sent)));
      sim.schedule(LEASES.lease().toNanos() / 4, () -> renew(node, term));
    }
  }

  private void runFor(long nanos) {
    long until = sim.nowNanos() + nanos;
    sim.runUntil(() -> sim.nowNanos() >= until, until + 1, "time to pass");
  }

  /** How the last reply says its get was served (null: not a served get). */
  private ReadMode lastReadMode() {
    return replies.get(replies.size() - 1).readMode();
  }

  private Outcome run(int node, Operation op) {
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    return result[0];
  }

  /** Node 0 holds the range in term 1, has written the key and is in leader-only mode. */
  private Version leaderWithKey() {
    grant(0, 1, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(0) == 1, 10_000_000_000L, "term persisted, range scanned");
    Version v =
        assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(KEY, b("v0"))))
            .version();
    runFor(10_000_000); // the commit reaches every replica
    return v;
  }

  @Test
  void leaderOnlyRead_zeroMessages_leaderOneReadNoWrite_followersNothing() {
    Version v = leaderWithKey();
    long messages = sim.messagesTotal();
    long[] reads = {sim.storeReads(0), sim.storeReads(1), sim.storeReads(2)};
    long[] writes = {sim.storeWrites(0), sim.storeWrites(1), sim.storeWrites(2)};
    long served = sim.leaderOnlyReads();
    long start = sim.nowNanos();
    Outcome.ReadResult r =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(v, r.value().orElseThrow().version());
    assertEquals(start, sim.nowNanos(), "0 RTT");
    assertEquals(0, sim.messagesTotal() - messages);
    assertEquals(served + 1, sim.leaderOnlyReads());
    assertEquals(ReadMode.LEADER_ONLY, lastReadMode(), "the reply tells the driver how");
    assertEquals(1, sim.storeReads(0) - reads[0]);
    assertEquals(0, sim.storeWrites(0) - writes[0]);
    for (int follower = 1; follower <= 2; follower++) {
      assertEquals(0, sim.storeReads(follower) - reads[follower]);
      assertEquals(0, sim.storeWrites(follower) - writes[follower]);
    }
  }

  @Test
  void aQuarantinedKeyAtTheLeader_isServedByTheOtherReplicas_neverFromTheLocalCell() {
    // Issue 23: a corrupt block fences the key at the lease holder. Its local cell must not
    // answer (a leader-only read would throw out of the core and stop the node); the get reads a
    // quorum, which the other two replicas form while node 0's acceptor stays silent.
    leaderWithKey();
    sim.quarantine(0, KEY);
    long served = sim.leaderOnlyReads();
    Outcome.ReadResult r =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals("v0", new String(r.value().orElseThrow().value(), StandardCharsets.UTF_8));
    assertEquals(served, sim.leaderOnlyReads());
    // A quorum read; it may settle the key by writing it again (its quorum is exactly the two
    // replicas that answer).
    assertTrue(Set.of(ReadMode.QUORUM, ReadMode.MUTATING_QUORUM).contains(lastReadMode()));
    // Writes go on through the other replicas too.
    Version v = r.value().orElseThrow().version();
    assertInstanceOf(
        Outcome.Written.class, run(0, new Operation.Cas(KEY, v, b("v1"))), "a CAS at the leader");
    Outcome.ReadResult after =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals("v1", new String(after.value().orElseThrow().value(), StandardCharsets.UTF_8));
  }

  @Test
  void aQuorumGet_underTheLease_readsAQuorum_andAnswersTheSame() {
    Version v = leaderWithKey();
    long messages = sim.messagesTotal();
    long served = sim.leaderOnlyReads();
    Outcome.ReadResult r =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY, true)));
    assertEquals(v, r.value().orElseThrow().version());
    assertEquals(6, sim.messagesTotal() - messages, "asked for a quorum: never the lease");
    assertEquals(served, sim.leaderOnlyReads());
    assertEquals(ReadMode.QUORUM, lastReadMode());
    // The lease still serves the next plain get locally.
    messages = sim.messagesTotal();
    run(0, new Operation.Get(KEY));
    assertEquals(0, sim.messagesTotal() - messages);
    assertEquals(ReadMode.LEADER_ONLY, lastReadMode());
  }

  @Test
  void withoutTheLease_orOnAnotherNode_theReadGoesToAQuorum() {
    leaderWithKey();
    long messages = sim.messagesTotal();
    run(1, new Operation.Get(KEY));
    assertEquals(6, sim.messagesTotal() - messages, "node 1 has no lease: a quorum read");
    assertEquals(ReadMode.QUORUM, lastReadMode());

    renewUntil[0] = 0; // the renewals stop: the lease runs out by node 0's clock
    runFor(LEASES.lease().toNanos());
    messages = sim.messagesTotal();
    long served = sim.leaderOnlyReads();
    assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(served, sim.leaderOnlyReads());
    assertEquals(6, sim.messagesTotal() - messages);
    assertEquals(ReadMode.QUORUM, lastReadMode());
  }

  @Test
  void doomedCas_underTheLease_failsFromTheLocalCell_withNoMessages_withoutTheLeaseIsRefused() {
    Version v = leaderWithKey();
    Version stale = v.next(); // not the newest: a mismatch
    long messages = sim.messagesTotal();
    long start = sim.nowNanos();
    long writes = sim.storeWrites(0);
    long rounds = casRounds(0);
    Outcome.Mismatch m =
        assertInstanceOf(Outcome.Mismatch.class, run(0, new Operation.Cas(KEY, stale, b("lost"))));
    assertEquals(v, m.current().orElseThrow().version(), "reports the newest chosen version");
    assertEquals(0, sim.messagesTotal() - messages, "0 messages");
    assertEquals(start, sim.nowNanos(), "0 RTT");
    assertEquals(writes, sim.storeWrites(0), "nothing written");
    assertEquals(1, sim.stats(0).mismatchesLeaderOnly());
    assertEquals(rounds, casRounds(0), "neither a warm nor a cold round");
    Outcome.Mismatch deleted =
        assertInstanceOf(Outcome.Mismatch.class, run(0, new Operation.Delete(KEY, stale)));
    assertEquals(v, deleted.current().orElseThrow().version());
    assertEquals(2, sim.stats(0).mismatchesLeaderOnly());

    // A CAS that expects the newest version still runs its round and is chosen.
    assertEquals(new Outcome.Written(v.next()), run(0, new Operation.Cas(KEY, v, b("v1"))));

    // Once the lease ran out the cell is no authority, and without a lease no round may start:
    // the doomed CAS is refused, not answered from the cell.
    renewUntil[0] = 0;
    runFor(LEASES.lease().toNanos());
    assertInstanceOf(Outcome.NotExecuted.class, run(0, new Operation.Cas(KEY, v, b("lost"))));
    assertEquals(2, sim.stats(0).mismatchesLeaderOnly());
  }

  /** Submits a CAS and a get together; returns both outcomes once the get is answered. */
  private Outcome[] casThenGet(Version expected) {
    Outcome[] result = {null, null};
    sim.submit(0, new Operation.Cas(KEY, expected, b("v1")), o -> result[0] = o);
    sim.submit(0, new Operation.Get(KEY), o -> result[1] = o);
    sim.runUntil(() -> result[1] != null, sim.nowNanos() + 10_000_000_000L, "get answered");
    return result;
  }

  @Test
  void aGetQueuedBehindACas_waitsForTheLeadersOwnCommit_andIsServedLeaderOnly() {
    Version v = leaderWithKey();
    long reads = sim.messages(Message.Read.class);
    long served = sim.leaderOnlyReads();
    Outcome[] r = casThenGet(v);
    assertEquals(new Outcome.Written(v.next()), r[0]);
    Outcome.ReadResult get = assertInstanceOf(Outcome.ReadResult.class, r[1]);
    assertEquals(v.next(), get.value().orElseThrow().version(), "sees the CAS queued before it");
    assertEquals(ReadMode.LEADER_ONLY, lastReadMode(), "waited for the commit, not a quorum");
    assertEquals(served + 1, sim.leaderOnlyReads());
    assertEquals(reads, sim.messages(Message.Read.class), "no read round");
  }

  @Test
  void aGetWaitingForTheLeadersOwnCommit_readsAQuorumOnceTheHedgeDelayPassed() {
    Version v = leaderWithKey();
    // The leader's commit to itself is lost: its cell never shows the CAS's value as chosen.
    sim.setLocalFilter((from, to, message) -> message instanceof Message.Commit);
    long reads = sim.messages(Message.Read.class);
    long start = sim.nowNanos();
    Outcome[] r = casThenGet(v);
    assertEquals(new Outcome.Written(v.next()), r[0]);
    Outcome.ReadResult get = assertInstanceOf(Outcome.ReadResult.class, r[1]);
    assertEquals(v.next(), get.value().orElseThrow().version());
    assertEquals(ReadMode.QUORUM, lastReadMode());
    assertTrue(sim.messages(Message.Read.class) > reads, "a read round");
    assertTrue(
        sim.nowNanos() - start >= sim.coreConfig().hedgeDelay().toNanos(),
        "it waited the hedge delay first");
  }

  private long casRounds(int node) {
    return sim.stats(node).casWarm() + sim.stats(node).casCold();
  }

  @Test
  void leaderOnlyReadsOff_readsAndDoomedCasGoToAQuorum_underTheLease() {
    sim = newSimulation(new CoreConfig.Modes(false, 0));
    Version v = leaderWithKey();
    long messages = sim.messagesTotal();
    Outcome.ReadResult r =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(v, r.value().orElseThrow().version());
    assertEquals(6, sim.messagesTotal() - messages, "a quorum read");
    assertEquals(0, sim.leaderOnlyReads());
    messages = sim.messagesTotal();
    Outcome.Mismatch m =
        assertInstanceOf(
            Outcome.Mismatch.class, run(0, new Operation.Cas(KEY, v.next(), b("lost"))));
    assertEquals(v, m.current().orElseThrow().version());
    assertTrue(sim.messagesTotal() > messages, "the mismatch was learned from a quorum");
    assertEquals(0, sim.stats(0).mismatchesLeaderOnly());
  }

  @Test
  void forcedColdShare_makesWarmCasPrepare_andTheyStillSucceed() {
    Version v = leaderWithKey();
    long warmBefore = sim.stats(0).casWarm();
    for (int i = 0; i < 5; i++) {
      v = assertInstanceOf(Outcome.Written.class, run(0, cas(v, i))).version();
    }
    assertTrue(sim.stats(0).casWarm() - warmBefore >= 4, "by default a leader's CAS run warm");

    sim = newSimulation(new CoreConfig.Modes(true, 1.0));
    v = leaderWithKey();
    long warm = sim.stats(0).casWarm();
    long cold = sim.stats(0).casCold();
    for (int i = 0; i < 5; i++) {
      v = assertInstanceOf(Outcome.Written.class, run(0, cas(v, i))).version();
    }
    assertEquals(warm, sim.stats(0).casWarm(), "share 1: no warm CAS");
    assertEquals(cold + 5, sim.stats(0).casCold());
  }

  private static Operation cas(Version expected, int i) {
    return new Operation.Cas(KEY, expected, b("v" + i));
  }

  @Test
  void successor_waitsTheLeaseTimesOnePlusRho_thenPersistsItsTerm_beforeItsFirstAccept() {
    Version v = leaderWithKey();
    events.clear();
    // Two nodes believe they lead: node 1 is granted term 2 while node 0 keeps its lease (as if
    // its revocation never reached it).
    long grantedMono = sim.monoNanos(1);
    grant(1, 2, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(1) == 1, 10_000_000_000L, "term 2 persisted, range scanned");
    Outcome cas = run(1, new Operation.Cas(KEY, v, b("v1")));
    assertEquals(new Outcome.Written(v.next()), cas);
    int persistAt = indexOf("TermPersist n1");
    int acceptAt = indexOf("Accept n1");
    assertTrue(persistAt >= 0 && persistAt < acceptAt, "term persisted first: " + events);
    long firstAcceptMono = Long.parseLong(events.get(acceptAt).split("@")[1]);
    assertTrue(
        firstAcceptMono - grantedMono >= LEASES.successorWaitNanos(),
        "first accept " + (firstAcceptMono - grantedMono) + " ns after the grant");

    // Node 0's accepts carry term 1 and die at the replicas that persisted term 2; its term ends.
    // (Its CAS expects what its own cell holds, so it runs a round rather than failing as a
    // mismatch from the cell, which this impossible double lease would make stale.)
    long staleBefore = sim.messages(Message.StaleTerm.class);
    Outcome late = run(0, new Operation.Cas(KEY, v, b("late")));
    assertInstanceOf(Outcome.Failure.class, late);
    assertTrue(sim.messages(Message.StaleTerm.class) > staleBefore);
    Outcome.ReadResult read =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(b("v1")[1], read.value().orElseThrow().value()[1]);
  }

  @Test
  void release_afterTheWait_isClean_endsLeaderOnlyReads_andTheSuccessorSkipsItsWait() {
    Version v = leaderWithKey();
    assertEquals(new Effect.LeaseReleased(0, 1, true), release(0, 1));
    long served = sim.leaderOnlyReads();
    assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(served, sim.leaderOnlyReads(), "no leader-only read after the release");
    // A renewal of the released term, even one sent after the release, does not revive it.
    sim.input(0, new Input.LeaseRenewed(0, 1, sim.monoNanos(0)));
    assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(served, sim.leaderOnlyReads(), "a released term stays released");

    events.clear();
    long grantedMono = sim.monoNanos(1);
    grantAfterRelease(1, 2, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(1) == 1, 10_000_000_000L, "term 2 persisted, range scanned");
    assertEquals(new Outcome.Written(v.next()), run(1, new Operation.Cas(KEY, v, b("v1"))));
    int persistAt = indexOf("TermPersist n1");
    int acceptAt = indexOf("Accept n1");
    assertTrue(persistAt >= 0 && persistAt < acceptAt, "term persisted first: " + events);
    long firstAcceptMono = Long.parseLong(events.get(acceptAt).split("@")[1]);
    assertTrue(
        firstAcceptMono - grantedMono < LEASES.successorWaitNanos() / 10,
        "first accept " + (firstAcceptMono - grantedMono) + " ns after the grant: no wait");
  }

  @Test
  void release_insideTheWait_orOfATermNotHeld_isNotClean() {
    leaderWithKey();
    grant(1, 2, 60_000_000_000L); // node 0 is revoked without being told
    assertEquals(new Effect.LeaseReleased(0, 2, false), release(1, 2), "inside node 1's wait");
    assertEquals(new Effect.LeaseReleased(0, 1, false), release(1, 1), "not node 1's term");
    assertEquals(new Effect.LeaseReleased(0, 7, false), release(2, 7), "never granted");
  }

  @Test
  void aReleaseMarkedCleanInsideTheWait_letsTwoLeasesOverlap_aStaleLeaderOnlyRead() {
    // What the clean flag prevents, shown with the rule broken: node 1 releases term 2 at once
    // although node 0's term-1 lease may still run; node 2 trusts the mark and writes at once.
    sim = newSimulation(CoreConfig.Modes.DEFAULT, Set.of(Sabotage.RELEASE_BEFORE_WAIT));
    Version v = leaderWithKey();
    renewUntil[0] = 0; // node 0's revocation has not reached it: it keeps the lease it has
    sim.setFilter((from, to, message) -> from == 0 || to == 0); // and it hears of no newer term
    grant(1, 2, 60_000_000_000L);
    assertEquals(new Effect.LeaseReleased(0, 2, true), release(1, 2));
    grantAfterRelease(2, 3, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(2) == 1, 10_000_000_000L, "term 3 persisted, range scanned");
    // (Node 2's scan may have quenched the key to a newer version: write from what it reads.)
    Version current =
        assertInstanceOf(Outcome.ReadResult.class, run(2, new Operation.Get(KEY)))
            .value()
            .orElseThrow()
            .version();
    Version acknowledged =
        assertInstanceOf(Outcome.Written.class, run(2, new Operation.Cas(KEY, current, b("v1"))))
            .version();
    long served = sim.leaderOnlyReads();
    Outcome.ReadResult stale =
        assertInstanceOf(Outcome.ReadResult.class, run(0, new Operation.Get(KEY)));
    assertEquals(served + 1, sim.leaderOnlyReads(), "node 0 still answers from its lease");
    assertEquals(v, stale.value().orElseThrow().version());
    assertTrue(v.compareTo(acknowledged) < 0, v + " is older than acknowledged " + acknowledged);
  }

  @Test
  void anOperationWaitingForTheLease_endsAtOnce_asMoved_whenTheNodeReleasesTheRange() {
    Version v = leaderWithKey();
    grant(1, 2, 60_000_000_000L); // node 1 waits out node 0's lease before its first accept
    Outcome[] waiting = {null};
    sim.submit(1, new Operation.Cas(KEY, v, b("v1")), o -> waiting[0] = o);
    runFor(50_000_000); // well inside T (200 ms here) and the wait (2 s)
    assertEquals(null, waiting[0], "queued until node 1 may coordinate");

    events.clear();
    release(1, 2); // node 1 hands the range on before its wait ended
    long releasedAt = sim.nowNanos();
    // The waiting operation looks again at its next tick, finds the range given up, and ends.
    sim.runUntil(() -> waiting[0] != null, releasedAt + 10_000_000L, "the moved operation");
    Outcome.NotExecuted moved = assertInstanceOf(Outcome.NotExecuted.class, waiting[0]);
    assertTrue(moved.rangeMoved(), "answered after the release, to be routed again: " + moved);
    // One that arrives afterwards is sent on at once too, instead of waiting out T.
    long before = sim.nowNanos();
    Outcome.NotExecuted late =
        assertInstanceOf(Outcome.NotExecuted.class, run(1, new Operation.Cas(KEY, v, b("v2"))));
    assertTrue(late.rangeMoved());
    assertEquals(before, sim.nowNanos(), "no round, no wait");
    // The released term is over: node 1 neither persists it nor scans for it.
    runFor(LEASES.successorWaitNanos() * 2);
    assertEquals(-1, indexOf("TermPersist n1"), "events: " + events);
    assertEquals(0, sim.rangeScansCompleted(1));
    // The value never reached a replica: node 0 still reads v.
    Outcome.ReadResult read =
        assertInstanceOf(Outcome.ReadResult.class, run(2, new Operation.Get(KEY)));
    assertEquals(v, read.value().orElseThrow().version());
  }

  @Test
  void anOperationWaitingForAGrantThatWillNotCome_endsAsMoved_whenTheNodeStopsCompeting() {
    Version v = leaderWithKey();
    // Node 1 was never granted the range, but its router (a view in which it was the preferred
    // holder) queued an operation there: it waits for a grant.
    Outcome[] waiting = {null};
    sim.submit(1, new Operation.Cas(KEY, v, b("v1")), o -> waiting[0] = o);
    runFor(50_000_000); // well inside T (200 ms here)
    assertEquals(null, waiting[0], "queued until node 1 may coordinate");

    // Its agent learns that node 0 is preferred and never joins the latch: nothing to release.
    sim.input(1, new Input.Candidacy(0, false));
    long toldAt = sim.nowNanos();
    sim.runUntil(() -> waiting[0] != null, toldAt + 10_000_000L, "the moved operation");
    Outcome.NotExecuted moved = assertInstanceOf(Outcome.NotExecuted.class, waiting[0]);
    assertTrue(moved.rangeMoved(), "to be routed again: " + moved);
    long before = sim.nowNanos();
    Outcome.NotExecuted late =
        assertInstanceOf(Outcome.NotExecuted.class, run(1, new Operation.Cas(KEY, v, b("v2"))));
    assertTrue(late.rangeMoved());
    assertEquals(before, sim.nowNanos(), "no round, no wait");

    // Competing again, it waits for its grant as before: here none comes, so T answers it, as a
    // plain "not executed" that is not routed again.
    sim.input(1, new Input.Candidacy(0, true));
    Outcome.NotExecuted timedOut =
        assertInstanceOf(Outcome.NotExecuted.class, run(1, new Operation.Cas(KEY, v, b("v3"))));
    assertFalse(timedOut.rangeMoved(), timedOut.toString());
    assertTrue(timedOut.reason().contains("bounded delay"), timedOut.reason());
  }

  @Test
  void aGrant_makesTheNodeACandidateAgain() {
    Version v = leaderWithKey();
    sim.input(1, new Input.Candidacy(0, false));
    grant(1, 2, 60_000_000_000L); // node 1 won the latch after all; it waits out node 0's lease
    Outcome[] waiting = {null};
    sim.submit(1, new Operation.Cas(KEY, v, b("v1")), o -> waiting[0] = o);
    runFor(50_000_000);
    assertEquals(null, waiting[0], "waits for its own lease instead of being moved");
  }

  @Test
  void aHolderThatStopsCompeting_keepsCoordinatingWhileItsLeaseLasts() {
    Version v = leaderWithKey();
    sim.input(0, new Input.Candidacy(0, false)); // the agent releases the lease separately
    assertInstanceOf(Outcome.Written.class, run(0, new Operation.Cas(KEY, v, b("v1"))));
  }

  @Test
  void aSupersededHolder_movesAnOperationThatProposedNothing_andStopsPersistingItsOldTerm() {
    leaderWithKey();
    grant(1, 2, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(1) == 1, 10_000_000_000L, "term 2 persisted, range scanned");
    // Node 0 still believes in its term-1 lease (its revocation never reached it). A create of a
    // new key prepares; the replicas refuse term 1, so node 0's term ends before it proposed.
    events.clear();
    Key fresh = Key.of(b("fresh"));
    Outcome.NotExecuted moved =
        assertInstanceOf(Outcome.NotExecuted.class, run(0, new Operation.Create(fresh, b("x"))));
    assertTrue(moved.rangeMoved(), moved.toString());
    runFor(LEASES.successorWaitNanos());
    assertEquals(-1, indexOf("TermPersist n0"), "a superseded term is not persisted again");
    assertEquals(
        new Outcome.ReadResult(java.util.Optional.empty()), run(1, new Operation.Get(fresh)));
  }

  @Test
  void anOperationThatProposedItsValue_isNeverMoved_itEndsUnknownOnceTheRangeIsGivenUp() {
    Version v = leaderWithKey();
    grant(1, 2, 60_000_000_000L);
    sim.runUntil(
        () -> sim.rangeScansCompleted(1) == 1, 10_000_000_000L, "term 2 persisted, range scanned");
    // Node 0's key is warm: its CAS sends its own value in an accept at once, which the replicas
    // refuse for its term. The value went out, so the CAS may not be answered "not executed"; the
    // refusal ends node 0's term, so no round of node 0 can learn more: unknown, at once, not at T.
    long before = sim.nowNanos();
    Outcome late = run(0, new Operation.Cas(KEY, v, b("late")));
    Outcome.Unknown unknown = assertInstanceOf(Outcome.Unknown.class, late);
    assertTrue(unknown.reason().contains("gave the key's range up"), unknown.reason());
    long took = sim.nowNanos() - before;
    assertTrue(took < 50_000_000L, "answered " + took / 1000 + " µs after it was asked (T 200 ms)");
  }

  @Test
  void aHolderThatReleasesTheRange_answersItsProposedOperationUnknownAtOnce_notAtT() {
    Version v = leaderWithKey();
    // Node 0 is cut off from its peers: its CAS sends its value in an accept nobody answers.
    sim.setFilter((from, to, message) -> from != to && (from == 0 || to == 0));
    Outcome[] answer = {null};
    sim.submit(0, new Operation.Cas(KEY, v, b("cut")), o -> answer[0] = o);
    runFor(20_000_000);
    assertEquals(null, answer[0], "no quorum, no answer yet");
    // Its agent steps down (the quorum watch): the release ends the lease for good.
    Effect.LeaseReleased released = release(0, 1);
    long releasedAt = sim.nowNanos();
    sim.runUntil(() -> answer[0] != null, releasedAt + 100_000_000L, "the proposed operation");
    Outcome.Unknown unknown = assertInstanceOf(Outcome.Unknown.class, answer[0]);
    assertTrue(unknown.reason().contains("gave the key's range up"), unknown.reason());
    assertTrue(
        sim.nowNanos() - releasedAt
            <= sim.coreConfig().roundTimeout().toNanos()
                + sim.coreConfig().backoffMax().toNanos()
                + 2_000_000L,
        "answered within a round timeout and back-off of the release, not at T: "
            + (sim.nowNanos() - releasedAt) / 1000
            + " µs; "
            + released);
  }

  private int indexOf(String prefix) {
    for (int i = 0; i < events.size(); i++) {
      if (events.get(i).startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
