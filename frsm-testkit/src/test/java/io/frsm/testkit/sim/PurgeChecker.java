package io.frsm.testkit.sim;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Placement;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Delete phase 2 never runs ahead of phase 1: when any replica durably records a purge mark {@code
 * (epoch, timestamp, …)}, every replica of the key already durably holds an accepted part at that
 * instance or above. "Durably" means logged: a hint (a commit merged without a commit-log record)
 * is lost by a crash, so a replica that holds the delete only as a hint does not count — after a
 * crash it could hold the value the delete replaced, and a purge elsewhere would let that value
 * return.
 *
 * <p>"Every replica" is every member (voter or learner) of the ring version the purge carried: a
 * delete's phase 1 waits for the learners too, and a completion whose range's members changed is
 * dropped without a purge (docs/PROTOCOL.md "Membership changes").
 */
final class PurgeChecker {
  private final RingHistory history;

  /** Each key's cell per node as its logged persists alone leave it (what a crash keeps). */
  private final Map<Key, Map<Integer, Cell>> logged = new HashMap<>();

  /** The ring versions each purge mark was sent with. */
  private final Map<Key, Map<PurgeMark, Set<Long>>> purgeVersions = new HashMap<>();

  private long purgesChecked;

  PurgeChecker(RingHistory history) {
    this.history = history;
  }

  /** Node {@code node} lost its disk: nothing it logged is kept. */
  void wiped(int node) {
    for (Map<Integer, Cell> cells : logged.values()) {
      cells.remove(node);
    }
  }

  void onSend(Message message) {
    if (message instanceof Message.Purge purge) {
      purgeVersions
          .computeIfAbsent(purge.key(), k -> new HashMap<>())
          .computeIfAbsent(purge.mark(), m -> new TreeSet<>())
          .add(purge.ringVersion());
    }
  }

  long purgesChecked() {
    return purgesChecked;
  }

  void onDurable(int node, Cell delta, boolean isLogged) {
    if (!isLogged) {
      return; // a hint: nothing a crash would keep
    }
    Map<Integer, Cell> cells = logged.computeIfAbsent(delta.key(), k -> new HashMap<>());
    Cell after = NodeStorage.merged(node, cells.get(node), delta);
    cells.put(node, after);
    PurgeMark mark = delta.purge();
    if (mark == null) {
      return;
    }
    purgesChecked++;
    for (int other : membersAt(after.key(), mark)) {
      AcceptedValue held = cells.get(other) == null ? null : cells.get(other).accepted();
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

  /**
   * The members of every version {@code mark} was sent with (the first version's voters if no such
   * purge was seen, as before ring versions).
   */
  private Set<Integer> membersAt(Key key, PurgeMark mark) {
    Set<Long> versions = purgeVersions.getOrDefault(key, Map.of()).get(mark);
    Set<Integer> members = new TreeSet<>();
    if (versions == null) {
      members.addAll(history.at(0).replicasOf(key));
      return members;
    }
    for (long version : versions) {
      Placement placement = history.at(version);
      members.addAll(placement.members(placement.rangeOf(key)));
    }
    return members;
  }
}
