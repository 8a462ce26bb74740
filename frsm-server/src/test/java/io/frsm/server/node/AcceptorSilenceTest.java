package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.consensus.core.RoundId;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class AcceptorSilenceTest {
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final RoundId ROUND = new RoundId(2, 1, 1);
  private static final Ballot BALLOT = new Ballot(5, 2, 1);
  private static final AcceptedValue VALUE =
      AcceptedValue.live(1, 1, BALLOT, new byte[] {1}, false);

  /** Every message that makes the acceptor persist a promise, a value, a term or a mark. */
  private static final List<Message> WRITING =
      List.of(
          new Message.Prepare(KEY, ROUND, BALLOT, 0),
          new Message.Accept(KEY, ROUND, VALUE, 0),
          new Message.TermPersist(RangeTerm.cellKey(0), ROUND, 0, 1),
          new Message.ListKeys(RangeTerm.cellKey(0), ROUND, 0, 1, 0, 0, null, 10),
          new Message.Commit(KEY, VALUE.withChosen(true)),
          new Message.Purge(KEY, new PurgeMark(1, 1, 1), 0));

  /** What the acceptor answers from what it holds, and what its coordinator receives. */
  private static final List<Message> NOT_WRITING =
      List.of(
          new Message.Read(KEY, ROUND, 0),
          new Message.ListKeys(RangeTerm.cellKey(0), ROUND, 0, 0, 0, 0, null, 10),
          new Message.Promise(KEY, ROUND, BALLOT, Ballot.NONE, null),
          new Message.Accepted(KEY, ROUND, BALLOT, 1, 1),
          new Message.ReadReply(KEY, ROUND, BALLOT, VALUE));

  @Test
  void drops_whileLow_everyMessageThatWrites_andNothingElse() {
    AcceptorSilence silence = new AcceptorSilence(() -> true);
    for (Message m : WRITING) {
      assertTrue(silence.drops(m, false), "dropped: " + m);
    }
    for (Message m : NOT_WRITING) {
      assertFalse(silence.drops(m, false), "passed: " + m);
    }
    assertEquals(WRITING.size(), silence.dropped());
  }

  @Test
  void ownCommit_alwaysPasses_everythingElseOfItsOwnIsDropped() {
    AcceptorSilence silence = new AcceptorSilence(() -> true);
    for (Message m : WRITING) {
      // A commit to itself is how a value this node learned chosen reaches its own cell; nothing
      // resends a dropped one, and the key would stay catching up for good.
      assertEquals(!(m instanceof Message.Commit), silence.drops(m, true), "own: " + m);
      assertTrue(silence.drops(m, false), "a peer's: " + m);
    }
    assertEquals(2 * WRITING.size() - 1, silence.dropped());
  }

  @Test
  void drops_followsTheGuard_andNothingWhileSpaceSuffices() {
    AtomicBoolean low = new AtomicBoolean();
    AcceptorSilence silence = new AcceptorSilence(low::get);
    for (Message m : WRITING) {
      assertFalse(silence.drops(m, false), "passed while space suffices: " + m);
    }
    low.set(true);
    assertTrue(silence.drops(WRITING.get(1), false));
    low.set(false);
    assertFalse(silence.drops(WRITING.get(1), false));
    assertEquals(1, silence.dropped());
  }
}
