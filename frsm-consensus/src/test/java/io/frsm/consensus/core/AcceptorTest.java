package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The acceptor rules (docs/DESIGN.md "Acceptor rules") through {@link NodeCore#step}. */
class AcceptorTest {
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final Key OTHER = Key.of("other".getBytes(StandardCharsets.US_ASCII));
  private static final RoundId R = new RoundId(1, 1, 0);
  private static final Now NOW = new Now(1_000_000, 0);

  private final Map<Key, Cell> durable = new HashMap<>();
  private final NodeCore node =
      new NodeCore(0, 1, CoreConfig.defaults(List.of(0, 1, 2)), durable::get, bound -> 0);

  private static Ballot ballot(long round) {
    return new Ballot(round, 1, 1);
  }

  private static AcceptedValue live(long t, Ballot b, String v) {
    return AcceptedValue.live(7, t, b, v.getBytes(StandardCharsets.US_ASCII), false);
  }

  private List<Effect> receive(Message m) {
    return node.step(NOW, new Input.Receive(1, m));
  }

  /** Completes every persist in {@code effects} (merging it), returning what that released. */
  private List<Effect> complete(List<Effect> effects) {
    List<Effect> released = new java.util.ArrayList<>();
    for (Effect e : effects) {
      if (e instanceof Effect.Persist p) {
        durable.merge(p.delta().key(), p.delta(), CellMerge::merge);
        List<Effect> more = node.step(NOW, new Input.PersistDone(p.persistId()));
        released.addAll(more);
        released.addAll(complete(more));
      }
    }
    return released;
  }

  private static Message sent(Effect e) {
    return assertInstanceOf(Effect.Send.class, e).message();
  }

  @Test
  void promise_isSentOnlyAfterItsPersistCompletes() {
    List<Effect> first = receive(new Message.Prepare(K, R, ballot(5)));
    assertEquals(1, first.size());
    Effect.Persist p = assertInstanceOf(Effect.Persist.class, first.get(0));
    assertEquals(ballot(5), p.delta().promised());
    assertEquals(null, p.delta().accepted()); // a prepare writes the promise and nothing else
    List<Effect> released = complete(first);
    Message.Promise promise = assertInstanceOf(Message.Promise.class, sent(released.get(0)));
    assertEquals(Ballot.NONE, promise.previous());
  }

  @Test
  void prepare_belowPromise_isRejectedWithClockAndValue() {
    complete(receive(new Message.Accept(K, R, live(3, ballot(9), "v"))));
    List<Effect> out = receive(new Message.Prepare(K, R, ballot(5)));
    Message.Reject reject = assertInstanceOf(Message.Reject.class, sent(out.get(0)));
    assertEquals(ballot(9), reject.promised());
    assertEquals(live(3, ballot(9), "v"), reject.accepted());
  }

  @Test
  void accept_jumpsAheadOverMissedInstances() {
    complete(receive(new Message.Accept(K, R, live(3, ballot(9), "old"))));
    List<Effect> released = complete(receive(new Message.Accept(K, R, live(7, ballot(9), "new"))));
    assertInstanceOf(Message.Accepted.class, sent(released.get(0)));
    assertEquals(7, durable.get(K).accepted().timestamp());
  }

  @Test
  void accept_ofOlderInstance_isRejectedWithTheNewerValue() {
    complete(receive(new Message.Accept(K, R, live(7, ballot(9), "new"))));
    List<Effect> out = receive(new Message.Accept(K, R, live(6, ballot(10), "late")));
    Message.Reject reject = assertInstanceOf(Message.Reject.class, sent(out.get(0)));
    assertEquals(7, reject.accepted().timestamp());
  }

  @Test
  void accept_belowPromise_isRejected() {
    complete(receive(new Message.Prepare(K, R, ballot(9))));
    List<Effect> out = receive(new Message.Accept(K, R, live(1, ballot(8), "v")));
    assertInstanceOf(Message.Reject.class, sent(out.get(0)));
    assertEquals(null, durable.get(K).accepted());
  }

  @Test
  void messagesForOneKey_waitBehindItsPersist_otherKeysDoNot() {
    List<Effect> prepare = receive(new Message.Prepare(K, R, ballot(5)));
    assertEquals(List.of(), receive(new Message.Read(K, R))); // waits: a persist of K in flight
    List<Effect> other = receive(new Message.Read(OTHER, R));
    assertInstanceOf(Message.ReadReply.class, sent(other.get(0)));
    List<Effect> released = complete(prepare);
    assertInstanceOf(Message.Promise.class, sent(released.get(0)));
    Message.ReadReply read = assertInstanceOf(Message.ReadReply.class, sent(released.get(1)));
    assertEquals(ballot(5), read.promised()); // the read saw the durable promise
  }

  @Test
  void commit_mergesAChosenValueWhateverThePromise() {
    complete(receive(new Message.Prepare(K, R, ballot(50))));
    complete(receive(new Message.Commit(K, live(4, ballot(9), "v").withChosen(true))));
    assertTrue(durable.get(K).accepted().chosen());
    assertEquals(ballot(50), durable.get(K).promised());
  }

  @Test
  void requestPastBoundedDelay_isNotExecuted_withoutAnyRound() {
    long boundedDelayMicros = CoreConfig.DEFAULT_BOUNDED_DELAY.toNanos() / 1_000;
    Now now = new Now(2 * boundedDelayMicros, 0); // τ below stays >= 0 (InputBounds)
    long tau = now.wallMicros() - boundedDelayMicros - 1;
    List<Effect> out = node.step(now, new Input.ClientRequest(9, new Operation.Fence(K), tau));
    assertEquals(1, out.size());
    Effect.Reply reply = assertInstanceOf(Effect.Reply.class, out.get(0));
    assertInstanceOf(Outcome.NotExecuted.class, reply.outcome());
  }

  @Test
  void proposalOrder_isBallotFirst_soALowerBallotLeftoverAboveIsNotM() {
    AcceptedValue chosenByHigherBallot = live(15, ballot(20), "y");
    AcceptedValue leftoverAbove = live(16, ballot(10), "x'");
    assertTrue(PromiseQuorum.newerProposal(chosenByHigherBallot, leftoverAbove));
    assertTrue(
        PromiseQuorum.newerProposal(live(16, ballot(20), "z"), chosenByHigherBallot)); // warm chain
  }

  @Test
  void commit_ofALiveValue_isAnUnloggedHint_aDeleteTheReplicaLacks_isLogged() {
    complete(receive(new Message.Accept(K, R, live(3, ballot(9), "v"))));
    AcceptedValue chosen = live(3, ballot(9), "v").withChosen(true);
    List<Effect> hint = receive(new Message.Commit(K, chosen));
    Effect.Persist flag = assertInstanceOf(Effect.Persist.class, hint.get(0));
    assertTrue(!flag.logged(), "only the chosen flag of a durable proposal: a hint");
    complete(hint);
    assertTrue(durable.get(K).accepted().chosen());

    // A newer instance this replica never accepted, a value it lacks: durable at the quorum that
    // chose it, so a hint here too.
    List<Effect> newer = receive(new Message.Commit(K, live(4, ballot(11), "w").withChosen(true)));
    assertTrue(!assertInstanceOf(Effect.Persist.class, newer.get(0)).logged());
    complete(newer);
    assertEquals(4, durable.get(K).accepted().timestamp());
    List<Effect> missing =
        receive(new Message.Commit(OTHER, live(1, ballot(2), "x").withChosen(true)));
    assertTrue(!assertInstanceOf(Effect.Persist.class, missing.get(0)).logged());
    complete(missing);

    // A delete the replica lacks is logged (delete phase 1 counts replicas holding it durably);
    // one it durably accepted only gets its flag, a hint.
    AcceptedValue gone = AcceptedValue.delete(7, 5, ballot(12), true);
    List<Effect> lacked = receive(new Message.Commit(K, gone));
    assertTrue(assertInstanceOf(Effect.Persist.class, lacked.get(0)).logged());
    complete(lacked);
    AcceptedValue accepted = AcceptedValue.delete(7, 6, ballot(13), false);
    complete(receive(new Message.Accept(OTHER, R, accepted)));
    List<Effect> held = receive(new Message.Commit(OTHER, accepted.withChosen(true)));
    assertTrue(!assertInstanceOf(Effect.Persist.class, held.get(0)).logged());

    // A store it cannot read: a live commit is still a hint, a delete is logged.
    NodeCore unreadable =
        new NodeCore(
            0,
            1,
            CoreConfig.defaults(List.of(0, 1, 2)),
            key -> {
              throw new CellStoreException("disk gone", null);
            },
            bound -> 0);
    List<Effect> blind = unreadable.step(NOW, new Input.Receive(1, new Message.Commit(K, chosen)));
    assertTrue(!assertInstanceOf(Effect.Persist.class, blind.get(0)).logged());
    List<Effect> blindDelete =
        unreadable.step(NOW, new Input.Receive(1, new Message.Commit(OTHER, gone)));
    assertTrue(assertInstanceOf(Effect.Persist.class, blindDelete.get(0)).logged());
  }
}
