package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.membership.MembershipChange.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The point of no return (docs/PROTOCOL.md "Membership changes", "Cancel"). */
class ChangeCancelTest {
  @Test
  void anAdd_isCancellableUntilItsPromotionIsPublished() {
    MembershipChange add = new MembershipChange(Kind.ADD, 4, -1, 10);
    assertEquals(12, ChangeCancel.pointOfNoReturn(add));
    assertDoesNotThrow(() -> ChangeCancel.refuseIfPast(add, 10), "nothing published");
    assertDoesNotThrow(() -> ChangeCancel.refuseIfPast(add, 11), "the learner version");
    IllegalStateException past =
        assertThrows(IllegalStateException.class, () -> ChangeCancel.refuseIfPast(add, 12));
    assertTrue(past.getMessage().contains("point of no return"), past.getMessage());
    assertTrue(past.getMessage().contains("the incoming nodes vote"), past.getMessage());
  }

  @Test
  void aRepair_isCancellableOnlyBeforeItsDemotion() {
    MembershipChange repair = new MembershipChange(Kind.REPAIR, 2, -1, 3, List.of(1, 5));
    assertEquals(4, ChangeCancel.pointOfNoReturn(repair));
    assertDoesNotThrow(() -> ChangeCancel.refuseIfPast(repair, 3));
    assertThrows(IllegalStateException.class, () -> ChangeCancel.refuseIfPast(repair, 4));
  }
}
