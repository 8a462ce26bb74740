package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RoundId;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The safety checker across ring versions (docs/PROTOCOL.md "Membership changes in the simulator"):
 * a learner's logged copy never completes a quorum of the version it was a learner in, counts once
 * it is a voter of a published version, and ex-members may keep their cells.
 */
class SafetyCheckerMembershipTest {
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));

  /** Four voters (q = 3); node 4 a learner at version 1 and a voter at version 2 (q = 3 of 5). */
  private static final Placement V0 = Placement.single(List.of(0, 1, 2, 3));

  private static final Placement V1 = V0.withRange(1, 0, List.of(0, 1, 2, 3), List.of(4));
  private static final Placement V2 = V1.withRange(2, 0, List.of(0, 1, 2, 3, 4), List.of());

  private static final AcceptedValue PROPOSAL =
      AcceptedValue.live(
          7, 0, new Ballot(100, 0, 1), "v".getBytes(StandardCharsets.US_ASCII), false);

  @Test
  void learnersCopy_completesNoQuorumOfTheVersionItWasALearnerIn() {
    RingHistory ring = new RingHistory(V0);
    ring.publish(V1);
    SafetyChecker checker = acceptedBy(ring, 0, 1, 4);
    SafetyViolation violation = assertThrows(SafetyViolation.class, () -> markChosen(checker, 0));
    assertTrue(
        violation.getMessage().contains("no quorum durably accepted"), violation.getMessage());
  }

  @Test
  void learnersCopy_countsOnceItIsAVoterOfAPublishedVersion() {
    RingHistory ring = new RingHistory(V0);
    ring.publish(V1);
    SafetyChecker checker = acceptedBy(ring, 0, 1, 4);
    ring.publish(V2); // {0, 1, 4} is a quorum of version 2's five voters: a read there may mark it
    assertDoesNotThrow(() -> markChosen(checker, 0));
  }

  @Test
  void exMembersMayKeepCells_nodesThatNeverReplicatedTheRangeMayNot() {
    RingHistory ring = new RingHistory(V0);
    ring.publish(V1);
    ring.publish(V2);
    ring.publish(V2.withRange(3, 0, List.of(1, 2, 3, 4), List.of()));
    SafetyChecker checker = new SafetyChecker(ring);
    assertDoesNotThrow(() -> vote(checker, 0), "node 0 left at version 3 and keeps its cell");
    SafetyViolation violation = assertThrows(SafetyViolation.class, () -> vote(checker, 5));
    assertTrue(violation.getMessage().contains("outside its replica set"), violation.getMessage());
  }

  /** A checker that saw {@link #PROPOSAL} sent at version 1 and logged by {@code nodes}. */
  private static SafetyChecker acceptedBy(RingHistory ring, int... nodes) {
    SafetyChecker checker = new SafetyChecker(ring);
    checker.onSend(0, new Message.Accept(KEY, new RoundId(0, 1, 1), PROPOSAL, 0, 1));
    for (int node : nodes) {
      vote(checker, node);
    }
    return checker;
  }

  private static void vote(SafetyChecker checker, int node) {
    Cell accepted = Cell.accepted(KEY, PROPOSAL, 0);
    checker.onDurable(node, null, accepted, accepted);
  }

  private static void markChosen(SafetyChecker checker, int node) {
    Cell chosen = Cell.accepted(KEY, PROPOSAL.withChosen(true), 0);
    checker.onDurable(node, Cell.accepted(KEY, PROPOSAL, 0), chosen, chosen);
  }
}
