package io.frsm.lsm.compaction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.lsm.manifest.TableEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SizeTieredPlannerTest {
  private static final long MB = 1024 * 1024;

  private static TableEntry table(long gen, long sizeBytes, boolean segregated) {
    return new TableEntry(gen, segregated, false, 0, 1, sizeBytes, 1);
  }

  @Test
  void fourSimilarTables_areCompacted() {
    SizeTieredPlanner planner = new SizeTieredPlanner(4, 32);
    List<TableEntry> live =
        List.of(
            table(1, 100 * MB, false),
            table(2, 110 * MB, false),
            table(3, 90 * MB, false),
            table(4, 105 * MB, false),
            table(5, 1000 * MB, false));
    List<TableEntry> plan = planner.plan(live, Set.of());
    assertEquals(
        Set.of(1L, 2L, 3L, 4L), Set.copyOf(plan.stream().map(TableEntry::generation).toList()));
  }

  @Test
  void dissimilarTables_areLeftAlone() {
    SizeTieredPlanner planner = new SizeTieredPlanner(4, 32);
    List<TableEntry> live =
        List.of(
            table(1, 10 * MB, false),
            table(2, 100 * MB, false),
            table(3, 1000 * MB, false),
            table(4, 10_000 * MB, false));
    assertTrue(planner.plan(live, Set.of()).isEmpty());
  }

  @Test
  void segregatedAndCompactingTables_areNeverChosen() {
    SizeTieredPlanner planner = new SizeTieredPlanner(2, 32);
    List<TableEntry> live =
        List.of(table(1, MB, true), table(2, MB, false), table(3, MB, false), table(4, MB, true));
    assertTrue(planner.plan(live, Set.of(2L)).isEmpty());
    assertEquals(2, planner.plan(live, Set.of()).size());
  }

  @Test
  void plan_isCappedAtMaxTables() {
    SizeTieredPlanner planner = new SizeTieredPlanner(4, 8);
    List<TableEntry> live = new ArrayList<>();
    for (int i = 1; i <= 20; i++) {
      live.add(table(i, MB, false));
    }
    assertEquals(8, planner.plan(live, Set.of()).size());
  }
}
