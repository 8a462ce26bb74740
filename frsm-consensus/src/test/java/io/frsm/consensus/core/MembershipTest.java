package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.CellKind;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ring versions, learners and settles in the core (docs/PROTOCOL.md "Membership changes"): the
 * acceptor refuses outdated rounds, learners never count toward a quorum, and a settle answers once
 * every key is held by a quorum of the version's voters.
 */
class MembershipTest {
  private static final Placement V0 = Placement.single(List.of(0, 1, 2));
  private static final Key K = Key.of(b("k"));
  private static final RoundId ROUND = new RoundId(9, 1, 1);
  private static final Ballot BALLOT = new Ballot(1_000, 9, 1);

  /** Version 1: node 3 joins range 0 as a learner. */
  private static final Placement V1_LEARNER = V0.withRange(1, 0, List.of(0, 1, 2), List.of(3));

  // ---- The acceptor's rule ------------------------------------------------------------------

  @Test
  void acceptor_refusesARoundOfAnOlderRingVersion_withStaleRing_andTakesNewerOnes() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    cluster.input(1, new Input.PlacementChanged(V1_LEARNER));
    assertEquals(List.of(new CoreCluster.Notice(1, new Effect.RingInstalled(1))), cluster.noticed);

    List<Effect> old =
        cluster.core(1).step(cluster.now(), receive(new Message.Prepare(K, ROUND, BALLOT, 0, 0)));
    assertEquals(List.of(new Effect.Send(9, new Message.StaleRing(K, ROUND, 1))), old);
    assertEquals(1, cluster.core(1).stats().staleRingRefused());
    assertNull(cluster.cell(1, K), "nothing persisted for a refused round");

    // A newer version than the replica knows is taken: its proposer's quorum is its own concern.
    List<Effect> newer =
        cluster.core(1).step(cluster.now(), receive(new Message.Prepare(K, ROUND, BALLOT, 0, 7)));
    assertInstanceOf(Effect.Persist.class, newer.get(0));
  }

  @Test
  void acceptor_refusesAnOldPurge_silently_butTakesCommitsOfAnyVersion() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    cluster.input(1, new Input.PlacementChanged(V1_LEARNER));
    AcceptedValue chosen = AcceptedValue.of(1, 1, BALLOT, CellKind.LIVE, b("v"), true);
    assertInstanceOf(
        Effect.Persist.class,
        cluster.core(1).step(cluster.now(), receive(new Message.Commit(K, chosen))).get(0));
    List<Effect> purge =
        cluster
            .core(1)
            .step(
                cluster.now(),
                receive(new Message.Purge(K, new io.frsm.cell.PurgeMark(1, 1, 5), 0)));
    assertEquals(List.of(), purge);
  }

  @Test
  void ignoringTheRingVersion_isASabotage_thatTakesTheOldRound() {
    CoreConfig broken =
        CoreConfig.defaults(V0).toBuilder()
            .sabotage(EnumSet.of(Sabotage.IGNORE_RING_VERSION))
            .build();
    CoreCluster cluster = new CoreCluster(4, broken);
    cluster.input(1, new Input.PlacementChanged(V1_LEARNER));
    List<Effect> old =
        cluster.core(1).step(cluster.now(), receive(new Message.Prepare(K, ROUND, BALLOT, 0, 0)));
    assertInstanceOf(Effect.Persist.class, old.get(0));
  }

  @Test
  void placementChanged_olderOrEqualIsNoOp_sameVersionOtherContentIsRefused() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    cluster.input(0, new Input.PlacementChanged(V1_LEARNER));
    assertEquals(1, cluster.core(0).ringVersion());
    assertEquals(List.of(), cluster.core(0).step(cluster.now(), new Input.PlacementChanged(V0)));
    assertEquals(
        List.of(), cluster.core(0).step(cluster.now(), new Input.PlacementChanged(V1_LEARNER)));
    Placement other = V0.withRange(1, 0, List.of(0, 1, 3), List.of());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> cluster.core(0).step(cluster.now(), new Input.PlacementChanged(other)));
    assertTrue(e.getMessage().contains("names another placement"), e.getMessage());
    assertEquals(1, cluster.core(0).ringVersion());
  }

  @Test
  void aNodeBehind_learnsItFromStaleRing_once() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    for (int node = 1; node <= 3; node++) {
      cluster.input(node, new Input.PlacementChanged(V1_LEARNER));
    }
    cluster.noticed.clear();
    long id = cluster.submit(0, new Operation.Create(K, b("v")));
    cluster.advance(CoreConfig.DEFAULT_ROUND_TIMEOUT.toNanos());
    List<Effect> behind = new ArrayList<>();
    cluster.noticed.stream().filter(n -> n.node() == 0).forEach(n -> behind.add(n.effect()));
    assertEquals(List.of(new Effect.RingBehind(1)), behind, "reported once, however many refuse");
    assertNull(cluster.outcome(id), "no quorum of the old version forms any more");
    assertTrue(cluster.core(0).stats().staleRingReplies() >= 1);
  }

  // ---- Learners ---------------------------------------------------------------------------

  @Test
  void learner_getsTheCommits_butItsAckNeverCompletesAQuorum() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V1_LEARNER));
    cluster.drop = (from, to, m) -> to == 1 || to == 2; // only the learner answers besides node 0
    long id = cluster.submit(0, new Operation.Create(K, b("v")));
    cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    assertNull(cluster.outcome(id), "node 0 and the learner are no quorum of {0, 1, 2}");

    cluster.drop = (from, to, m) -> false;
    cluster.advance(CoreConfig.DEFAULT_ROUND_TIMEOUT.toNanos());
    cluster.advance(CoreConfig.DEFAULT_BACKOFF_MAX.toNanos());
    assertInstanceOf(Outcome.Written.class, cluster.outcome(id));
    assertNotNull(cluster.cell(3, K), "the learner caught up through the commit");
    assertTrue(cluster.cell(3, K).accepted().chosen(), "a chosen value");
    assertTrue(
        cluster.sent.stream().noneMatch(s -> s.to() == 3 && s.message() instanceof Message.Prepare),
        "a learner is never asked to promise");
    assertTrue(
        cluster.sent.stream().noneMatch(s -> s.to() == 3 && s.message() instanceof Message.Accept),
        "nor sent a live value's accept: its copy would be evidence of nothing");
  }

  @Test
  void learner_getsADeletesAccept_soDeletePhase1FindsItHoldingTheDelete() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V1_LEARNER));
    Outcome created = cluster.outcome(cluster.submit(0, new Operation.Create(K, b("v"))));
    assertInstanceOf(Outcome.Written.class, created);
    cluster.sent.clear();
    Outcome deleted =
        cluster.outcome(
            cluster.submit(0, new Operation.Delete(K, ((Outcome.Written) created).version())));
    assertInstanceOf(Outcome.Deleted.class, deleted);
    assertTrue(
        cluster.sent.stream()
            .anyMatch(
                s ->
                    s.to() == 3
                        && s.message() instanceof Message.Accept a
                        && a.proposal().isDelete()),
        "the delete's accept reaches the learner");
  }

  @Test
  void learnerVotes_isASabotage_whoseAckCompletesAQuorum() {
    CoreConfig broken =
        CoreConfig.defaults(V1_LEARNER).toBuilder()
            .sabotage(EnumSet.of(Sabotage.LEARNER_VOTES))
            .build();
    CoreCluster cluster = new CoreCluster(4, broken);
    cluster.drop = (from, to, m) -> to == 1 || to == 2;
    long id = cluster.submit(0, new Operation.Create(K, b("v")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(id), "chosen by {0, learner 3}");
  }

  @Test
  void learner_neverPersistsATerm_soItNeverHoldsTheRange() {
    CoreConfig config = CoreConfig.builder(V1_LEARNER).leases(LeaseConfig.defaults()).build();
    CoreCluster cluster = new CoreCluster(4, config);
    cluster.input(3, new Input.TermGranted(0, 1, true));
    cluster.input(3, new Input.LeaseRenewed(0, 1, cluster.now().monoNanos()));
    cluster.advance(1_000);
    assertTrue(
        cluster.sent.stream().noneMatch(s -> s.message() instanceof Message.TermPersist),
        "no term persist from a learner");
    assertEquals(0, cluster.core(3).rangeScansCompleted());
  }

  // ---- Settles ----------------------------------------------------------------------------

  @Test
  void settle_answersOnceEveryKeyIsHeldByAQuorumOfTheVersionsVoters() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    // Three keys chosen at {0, 1} only (node 2 missed them), then node 3 becomes a voter.
    cluster.drop = (from, to, m) -> to == 2;
    List<Key> keys = List.of(Key.of(b("a")), Key.of(b("b")), Key.of(b("c")));
    for (Key key : keys) {
      assertInstanceOf(
          Outcome.Written.class,
          cluster.outcome(cluster.submit(0, new Operation.Create(key, b("v")))));
    }
    cluster.drop = (from, to, m) -> false;
    Placement v1 = V0.withRange(1, 0, List.of(0, 1, 2, 3), List.of());
    for (int node = 0; node < 4; node++) {
      cluster.input(node, new Input.PlacementChanged(v1));
    }
    cluster.noticed.clear();
    cluster.input(0, new Input.SettleRange(0, 1));
    cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    assertEquals(
        List.of(new CoreCluster.Notice(0, new Effect.RangeSettled(0, 1, true))), cluster.noticed);
    for (Key key : keys) {
      int holders = 0;
      for (int node = 0; node < 4; node++) {
        var cell = cluster.cell(node, key);
        holders += cell != null && cell.accepted() != null ? 1 : 0;
      }
      assertTrue(holders >= 3, key + " is held by a quorum of the four voters: " + holders);
    }
    assertEquals(1, cluster.core(0).rangeSettlesCompleted());
    assertEquals(0, cluster.core(0).stats().gets(), "settle reads are no client operations");
  }

  /**
   * Every voter already shows the key's triple, yet the settle still writes it: a copy a replica
   * shows may be a commit it took as an unlogged hint, which a crash loses (docs/PROTOCOL.md
   * "Membership changes", settle; the simulator's SettleHintTest scripts the write that was lost).
   */
  @Test
  void settle_reCommitsEvenAKeyEveryVoterShows_soNoHintCountsTowardItsQuorum() {
    CoreCluster cluster = new CoreCluster(3, CoreConfig.defaults(V0));
    assertInstanceOf(
        Outcome.Written.class, cluster.outcome(cluster.submit(0, new Operation.Create(K, b("v")))));
    cluster.sent.clear();
    cluster.input(1, new Input.SettleRange(0, 0));
    cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    assertEquals(
        List.of(new CoreCluster.Notice(1, new Effect.RangeSettled(0, 0, true))), cluster.noticed);
    long accepts =
        cluster.sent.stream()
            .filter(
                s -> s.from() == 1 && s.message() instanceof Message.Accept a && a.key().equals(K))
            .count();
    assertTrue(
        accepts >= 2, "the settle re-committed the key at a quorum: " + accepts + " accepts");
  }

  /**
   * What the settle meters count (frsm.settle.rounds.preempted, frsm.settle.reads.retried): a
   * settle read's prepare refused for a higher ballot another proposer got promised first, and a
   * settle read that ended without a value and was read again; the settle still ends settled.
   */
  @Test
  void settle_countsRoundsPreemptedByAHigherBallot_andReadsReadAgain() {
    CoreCluster cluster = new CoreCluster(3, CoreConfig.defaults(V0));
    assertInstanceOf(
        Outcome.Written.class, cluster.outcome(cluster.submit(0, new Operation.Create(K, b("v")))));
    // Another proposer got a far higher ballot promised at nodes 1 and 2.
    Ballot higher = new Ballot(Long.MAX_VALUE / 4, 9, 1);
    // (Sent as if by the other replica, so the promise and its persist are carried out.)
    Message.Prepare prepare = new Message.Prepare(K, ROUND, higher, 0, 0);
    cluster.input(1, new Input.Receive(2, prepare));
    cluster.input(2, new Input.Receive(1, prepare));
    cluster.input(0, new Input.SettleRange(0, 0));
    for (int i = 0; i < 10_000 && cluster.noticed.isEmpty(); i++) {
      cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    }
    assertEquals(
        List.of(new CoreCluster.Notice(0, new Effect.RangeSettled(0, 0, true))), cluster.noticed);
    assertTrue(cluster.core(0).stats().settleRoundsPreempted() >= 1, "the refused prepare");
    assertEquals(0, cluster.core(0).stats().settleReadRetries(), "the read itself went on");

    // Now the answers to node 0's rounds are lost (its listing is not) until its settle read gives
    // up; then it is read again.
    cluster.noticed.clear();
    cluster.drop = (from, to, m) -> to == 0 && from != 0 && !(m instanceof Message.KeysListed);
    cluster.input(0, new Input.SettleRange(0, 0));
    for (int i = 0; i < 10_000 && cluster.core(0).stats().settleReadRetries() == 0; i++) {
      cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    }
    assertTrue(cluster.core(0).stats().settleReadRetries() >= 1, "a read ended without a value");
    cluster.drop = (from, to, m) -> false;
    for (int i = 0; i < 10_000 && cluster.noticed.isEmpty(); i++) {
      cluster.advance(CoreConfig.DEFAULT_HEDGE_DELAY.toNanos());
    }
    assertEquals(
        List.of(new CoreCluster.Notice(0, new Effect.RangeSettled(0, 0, true))), cluster.noticed);
  }

  @Test
  void settle_ofAnotherVersion_orCutShortByANewerOne_answersNotSettled() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    cluster.input(0, new Input.SettleRange(0, 3));
    assertEquals(
        List.of(new CoreCluster.Notice(0, new Effect.RangeSettled(0, 3, false))), cluster.noticed);
    cluster.noticed.clear();
    cluster.drop = (from, to, m) -> from != to; // the listing never comes back
    cluster.input(0, new Input.SettleRange(0, 0));
    cluster.input(0, new Input.PlacementChanged(V1_LEARNER));
    assertEquals(
        List.of(
            new CoreCluster.Notice(0, new Effect.RangeSettled(0, 0, false)),
            new CoreCluster.Notice(0, new Effect.RingInstalled(1))),
        cluster.noticed);
  }

  @Test
  void settleListing_isAnsweredOnlyByAReplicaThatInstalledItsVersion() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(V0));
    Message.ListKeys listing =
        new Message.ListKeys(
            RangeTerm.cellKey(0), ROUND, 0, 0, Long.MIN_VALUE, Long.MAX_VALUE, null, 10, 1);
    assertEquals(
        List.of(new Effect.Send(9, new Message.StaleRing(listing.key(), ROUND, 0))),
        cluster.core(1).step(cluster.now(), receive(listing)));
    cluster.input(1, new Input.PlacementChanged(V1_LEARNER));
    assertInstanceOf(
        Message.KeysListed.class,
        ((Effect.Send) cluster.core(1).step(cluster.now(), receive(listing)).get(0)).message());
  }

  private static Input.Receive receive(Message m) {
    return new Input.Receive(9, m);
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
