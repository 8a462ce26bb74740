package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The warm-key rule checked when a key is used: a key stays warm only if its prepare set was one
 * voter or less from every voter set its range had since the round (docs/PROTOCOL.md "Warm keys
 * across a one-voter change"), as if each placement change had checked it.
 */
class WarmKeysTest {
  /** Range 0 holds the negative tokens, range 1 the rest; both on nodes 0, 1, 2. */
  private static final Placement V0 = Placement.splitAt(List.of(0L), List.of(0, 1, 2));

  private static final Ballot B = new Ballot(7, 0, 1);
  private static final AcceptedValue CHOSEN =
      AcceptedValue.live(1, 1, B, "v".getBytes(StandardCharsets.UTF_8), true);
  private static final List<Integer> ABC = List.of(0, 1, 2);

  private final Key key = Key.of("k".getBytes(StandardCharsets.UTF_8));
  private final int range = V0.rangeOf(key);

  @Test
  void aChangeOfAnotherRange_leavesTheKeyWarm() {
    WarmKeys warm = rememberedAtV0();
    step(warm, V0, V0.withRange(1, 1 - range, List.of(0, 1, 3), List.of()));
    assertNotNull(warm.get(key));
  }

  @Test
  void oneVoterAdded_thenRemovedAgain_staysWarm() {
    WarmKeys warm = rememberedAtV0();
    Placement v1 = V0.withRange(1, range, List.of(0, 1, 2, 3), List.of());
    step(warm, V0, v1);
    step(warm, v1, v1.withRange(2, range, ABC, List.of()));
    assertNotNull(warm.get(key));
  }

  @Test
  void twoVotersFromThePrepareSet_atTheLatestChange_turnsCold() {
    WarmKeys warm = rememberedAtV0();
    Placement v1 = V0.withRange(1, range, List.of(0, 1, 2, 3), List.of());
    step(warm, V0, v1);
    step(warm, v1, v1.withRange(2, range, List.of(0, 1, 3), List.of()));
    assertNull(warm.get(key), "{0, 1, 3} is two voters from {0, 1, 2}");
    assertNull(warm.get(key), "and it is forgotten");
  }

  /**
   * The path the eager check forgot the key on: two voters away at an intermediate set, one away at
   * the present one. Checking only the present set would keep the key warm.
   */
  @Test
  void twoVotersAwayAtAnIntermediateSet_turnsCold_evenIfThePresentSetIsOneAway() {
    WarmKeys warm = rememberedAtV0();
    Placement v1 = V0.withRange(1, range, List.of(0, 1, 2, 3), List.of());
    Placement v2 = v1.withRange(2, range, List.of(0, 1, 3), List.of());
    Placement v3 = v2.withRange(3, range, List.of(0, 1, 3, 2), List.of());
    step(warm, V0, v1);
    step(warm, v1, v2);
    step(warm, v2, v3);
    assertTrue(
        PlacementChange.oneVoterApart(ABC, v3.replicas(range)), "the present set is one away");
    assertNull(warm.get(key), "{0, 1, 3} on the way was two voters from {0, 1, 2}");
  }

  @Test
  void checkedOnce_thenLaterChangesAreCheckedFromThere() {
    WarmKeys warm = rememberedAtV0();
    Placement v1 = V0.withRange(1, range, List.of(0, 1, 2, 3), List.of());
    step(warm, V0, v1);
    assertNotNull(warm.get(key), "one voter added");
    Placement v2 = v1.withRange(2, range, ABC, List.of());
    step(warm, v1, v2);
    assertNotNull(warm.get(key), "back at its prepare set");
  }

  @Test
  void moreChangesThanKept_turnsCold() {
    WarmKeys warm = rememberedAtV0();
    Placement from = V0;
    for (int i = 1; i <= WarmKeys.SETS_KEPT + 1; i++) {
      // Alternate {0, 1, 2, 3} and {0, 1, 2}: each set usable, but too many to check.
      List<Integer> voters = i % 2 == 1 ? List.of(0, 1, 2, 3) : ABC;
      Placement to = from.withRange(i, range, voters, List.of());
      step(warm, from, to);
      from = to;
    }
    assertNull(warm.get(key));
  }

  @Test
  void exactlyAsManyChangesAsKept_stayWarm() {
    WarmKeys warm = rememberedAtV0();
    Placement from = V0;
    for (int i = 1; i <= WarmKeys.SETS_KEPT; i++) {
      List<Integer> voters = i % 2 == 1 ? List.of(0, 1, 2, 3) : ABC;
      Placement to = from.withRange(i, range, voters, List.of());
      step(warm, from, to);
      from = to;
    }
    assertNotNull(warm.get(key));
  }

  private WarmKeys rememberedAtV0() {
    WarmKeys warm = new WarmKeys(16, V0.rangeCount());
    warm.remember(key, range, B, CHOSEN, ABC);
    assertNotNull(warm.get(key));
    return warm;
  }

  private static void step(WarmKeys warm, Placement from, Placement to) {
    warm.placementChanged(PlacementChange.between(from, to));
  }
}
