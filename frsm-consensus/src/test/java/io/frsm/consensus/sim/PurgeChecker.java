package io.frsm.consensus.sim;

import io.frsm.lsm.cell.AcceptedValue;
import io.frsm.lsm.cell.Cell;
import io.frsm.lsm.cell.Key;
import io.frsm.lsm.cell.PurgeMark;
import java.util.HashMap;
import java.util.Map;

/**
 * Delete phase 2 never runs ahead of phase 1: when any replica durably records a purge mark {@code
 * (epoch, timestamp, …)}, every replica of the key already durably holds an accepted part at that
 * instance or above. Sees only durable changes, like {@link SafetyChecker}.
 */
final class PurgeChecker {
  private final int nodes;
  private final io.frsm.consensus.core.Placement placement;
  private final Map<Key, Cell[]> durable = new HashMap<>();
  private long purgesChecked;

  PurgeChecker(int nodes, io.frsm.consensus.core.Placement placement) {
    this.nodes = nodes;
    this.placement = placement;
  }

  long purgesChecked() {
    return purgesChecked;
  }

  void onDurable(int node, Cell before, Cell delta, Cell after) {
    Cell[] cells = durable.computeIfAbsent(after.key(), k -> new Cell[nodes]);
    cells[node] = after;
    PurgeMark mark = delta.purge();
    if (mark == null) {
      return;
    }
    purgesChecked++;
    for (int other : placement.replicasOf(after.key())) {
      AcceptedValue held = cells[other] == null ? null : cells[other].accepted();
      boolean atOrAbove =
          held != null
              && (held.epoch() > mark.epoch()
                  || (held.epoch() == mark.epoch() && held.timestamp() >= mark.timestamp()));
      if (!atOrAbove) {
        throw new SafetyViolation(
            "node "
                + node
                + " recorded purge "
                + mark
                + " for "
                + after.key()
                + " before phase 1 ended: node "
                + other
                + " holds "
                + (held == null ? "⊥" : held));
      }
    }
  }
}
