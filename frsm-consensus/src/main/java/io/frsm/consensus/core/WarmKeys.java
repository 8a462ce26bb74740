package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The warm state (docs/DESIGN.md "Warm CAS"): the keys whose last round in this incarnation got
 * {@code q} acks, with that round's ballot, the voters that ballot was prepared at and the value it
 * chose, so the next CAS may skip its prepare. In memory only and bounded: the least recently used
 * key is forgotten first, and a crash forgets all, which only costs a prepare.
 *
 * <p>A key stays warm while its range's voters are its ballot's prepare set or that set with one
 * node added or removed (docs/PROTOCOL.md "Warm keys across a one-voter change"): every majority of
 * such a set meets the majority that promised the ballot. Two voters apart it turns cold — at every
 * voter set its range has had since the round, not only the present one.
 *
 * <p>That check is made when the key is next used ({@link #get}), not at the placement change: the
 * change only records each changed range's new voters ({@link #placementChanged}, O(ranges)). A
 * placement change runs on the core's thread, which serves nothing meanwhile, and a join publishes
 * two per batch; walking every warm key there took ~0.34 s per version on a node with ~330K warm
 * keys (docs/BENCHMARKS.md, 2026-11-29 midday). The lazy check is the eager one: a key is warm at
 * {@link #get} only if its prepare set was usable at each voter set its range had since the round
 * (the last {@link #SETS_KEPT} of them are kept; a key older than those turns cold, which only
 * costs a prepare).
 *
 * <p>Not thread-safe: the core's single thread only.
 */
final class WarmKeys {
  /** Voter sets kept per range for the check at {@link #get}; older rounds turn cold. */
  static final int SETS_KEPT = 8;

  /**
   * A key's last round with {@code q} acks: its ballot, the value it chose, the voters the ballot's
   * prepare went to ({@code preparedAt}, whose majority promised it), its range (ranges never
   * change under a core: "The transition rules", rule 1) and how many voter changes that range had
   * seen when the round was remembered or last checked ({@code votersChanges}).
   */
  record Warm(
      Ballot ballot,
      AcceptedValue chosen,
      List<Integer> preparedAt,
      int range,
      long votersChanges) {
    Warm {
      preparedAt = List.copyOf(preparedAt);
    }
  }

  private final LinkedHashMap<Key, Warm> warm;

  /** Per range: how many placement changes moved its voters since this core started. */
  private final long[] votersChanges;

  /**
   * Per range: its last {@link #SETS_KEPT} voter sets, the set after change c at slot c mod
   * SETS_KEPT.
   */
  private final List<Integer>[] recentVoters;

  @SuppressWarnings("unchecked")
  WarmKeys(int max, int rangeCount) {
    this.warm =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Warm> eldest) {
            return size() > max;
          }
        };
    this.votersChanges = new long[rangeCount];
    this.recentVoters = new List[rangeCount * SETS_KEPT];
  }

  /**
   * The key's warm state, or null: the key is cold, or its range's voters moved more than one node
   * away from its ballot's prepare set at some change since its round (it is then forgotten).
   * Counts as a use.
   */
  Warm get(Key key) {
    Warm w = warm.get(key);
    if (w == null || w.votersChanges() == votersChanges[w.range()]) {
      return w;
    }
    long now = votersChanges[w.range()];
    boolean usable = now - w.votersChanges() <= SETS_KEPT;
    for (long c = w.votersChanges() + 1; usable && c <= now; c++) {
      usable = usableAt(w.preparedAt(), votersAt(w.range(), c));
    }
    if (!usable) {
      warm.remove(key);
      return null;
    }
    Warm checked = new Warm(w.ballot(), w.chosen(), w.preparedAt(), w.range(), now);
    warm.put(key, checked);
    return checked;
  }

  /**
   * Remembers a round of {@code key}, of range {@code range}, checked by the caller against the
   * range's present voters.
   */
  void remember(Key key, int range, Ballot ballot, AcceptedValue chosen, List<Integer> preparedAt) {
    warm.put(key, new Warm(ballot, chosen, preparedAt, range, votersChanges[range]));
  }

  void forget(Key key) {
    warm.remove(key);
  }

  /**
   * Records the new voters of every range whose voters {@code change} moves; the keys of those
   * ranges are checked against them when next used ({@link #get}).
   */
  void placementChanged(PlacementChange change) {
    for (int range : change.rangesWithReplicasChanged()) {
      long c = ++votersChanges[range];
      recentVoters[slot(range, c)] = change.next().replicas(range);
    }
  }

  /** The voters range {@code range} had after its {@code change}-th change (kept: checked). */
  private List<Integer> votersAt(int range, long change) {
    return recentVoters[slot(range, change)];
  }

  private static int slot(int range, long change) {
    return range * SETS_KEPT + (int) (change % SETS_KEPT);
  }

  /**
   * Whether a ballot prepared at {@code preparedAt} may be proposed without a new prepare to the
   * voters {@code voters}: the same set, or one node added or removed.
   */
  static boolean usableAt(List<Integer> preparedAt, List<Integer> voters) {
    return PlacementChange.sameMembers(preparedAt, voters)
        || PlacementChange.oneVoterApart(preparedAt, voters);
  }
}
