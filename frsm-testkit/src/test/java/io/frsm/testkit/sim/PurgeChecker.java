package io.frsm.testkit.sim;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import java.util.HashMap;
import java.util.Map;

/**
 * Delete phase 2 never runs ahead of phase 1: when any replica durably records a purge mark {@code
 * (epoch, timestamp, …)}, every replica of the key already durably holds an accepted part at that
 * instance or above. "Durably" means logged: a hint (a commit merged without a commit-log record)
 * is lost by a crash, so a replica that holds the delete only as a hint does not count — after a
 * crash it could hold the value the delete replaced, and a purge elsewhere would let that value
 * return.
 */
final class PurgeChecker {
  private final int nodes;
  private final io.frsm.consensus.core.Placement placement;

  /** Each key's cell per node as its logged persists alone leave it (what a crash keeps). */
  private final Map<Key, Cell[]> logged = new HashMap<>();

  private long purgesChecked;

  PurgeChecker(int nodes, io.frsm.consensus.core.Placement placement) {
    this.nodes = nodes;
    this.placement = placement;
  }

  long purgesChecked() {
    return purgesChecked;
  }

  void onDurable(int node, Cell delta, boolean isLogged) {
    if (!isLogged) {
      return; // a hint: nothing a crash would keep
    }
    Cell[] cells = logged.computeIfAbsent(delta.key(), k -> new Cell[nodes]);
    Cell after = NodeStorage.merged(node, cells[node], delta);
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
                + " holds, as logged, "
                + (held == null ? "⊥" : held));
      }
    }
  }
}
