package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardRoutingTest {
  /** Five ranges over four nodes, as a small ring would place them. */
  private static final Placement FIVE_RANGES =
      Placement.of(
          List.of(-(1L << 62), -(1L << 61), 0L, 1L << 62, Long.MAX_VALUE),
          List.of(
              List.of(0, 1, 2),
              List.of(1, 2, 3),
              List.of(2, 3, 0),
              List.of(3, 0, 1),
              List.of(0, 1, 2)));

  private static Key key(int i) {
    return Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
  }

  @Test
  void everyInputAboutAKey_goesToTheShardOwningItsRange() {
    ShardRouting routing = new ShardRouting(FIVE_RANGES, 2);
    RoundId round = new RoundId(1, 1, 7);
    for (int i = 0; i < 500; i++) {
      Key k = key(i);
      int owner = FIVE_RANGES.rangeOf(k) % 2;
      assertEquals(owner, routing.ofKey(k));
      assertEquals(owner, routing.of(new Input.ClientRequest(i, new Operation.Get(k), 0)));
      assertEquals(owner, routing.of(new Input.Receive(2, new Message.Read(k, round))));
    }
  }

  @Test
  void aRangesTermCell_goesByTheRangeItNames_notByItsToken() {
    ShardRouting routing = new ShardRouting(FIVE_RANGES, 3);
    RoundId round = new RoundId(1, 1, 7);
    for (int range = 0; range < FIVE_RANGES.rangeCount(); range++) {
      Key cell = RangeTerm.cellKey(range);
      int owner = range % 3;
      assertEquals(owner, routing.ofKey(cell), "range " + range);
      assertEquals(
          owner, routing.of(new Input.Receive(1, new Message.TermPersist(cell, round, range, 4))));
      assertEquals(
          owner, routing.of(new Input.Receive(1, new Message.TermPersisted(cell, round, 4))));
      assertEquals(owner, routing.of(new Input.TermGranted(range, 4, false)));
      assertEquals(owner, routing.of(new Input.LeaseRenewed(range, 4, 0)));
      assertEquals(owner, routing.of(new Input.LeaseLost(range)));
      assertEquals(owner, routing.of(new Input.ReleaseLease(range, 4)));
    }
    // Some range's term cell hashes into another range: the name must win over the token.
    boolean someCellElsewhere = false;
    for (int range = 0; range < FIVE_RANGES.rangeCount(); range++) {
      someCellElsewhere |= FIVE_RANGES.rangeOf(RangeTerm.cellKey(range)) % 3 != range % 3;
    }
    assertTrue(someCellElsewhere, "the test needs a term cell whose token lies in another shard");
  }

  @Test
  void keysSpreadOverEveryShard_andOneShardTakesEverything() {
    ShardRouting two = new ShardRouting(FIVE_RANGES, 2);
    ShardRouting one = new ShardRouting(FIVE_RANGES, 1);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      seen.add(two.ofKey(key(i)));
      assertEquals(0, one.ofKey(key(i)));
    }
    assertEquals(Set.of(0, 1), seen);
  }

  @Test
  void ticksAndPersistCompletions_haveNoOwner_andBadCountsAreRefused() {
    ShardRouting routing = new ShardRouting(FIVE_RANGES, 2);
    assertThrows(IllegalArgumentException.class, () -> routing.of(new Input.Tick()));
    assertThrows(IllegalArgumentException.class, () -> routing.of(new Input.PersistDone(3)));
    assertThrows(
        IllegalArgumentException.class,
        () -> routing.of(new Input.PlacementChanged(Placement.single(List.of(0)))));
    assertThrows(IllegalArgumentException.class, () -> new ShardRouting(FIVE_RANGES, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new ShardRouting(FIVE_RANGES, ShardRouting.MAX_SHARDS + 1));
    // A range a bad peer names beyond the ring still maps to some shard (the core refuses it).
    assertEquals(1, routing.ofRange(7));
    assertEquals(1, routing.ofRange(-1));
  }
}
