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
 * such a set meets the majority that promised the ballot. Two voters apart it turns cold.
 *
 * <p>Not thread-safe: the core's single thread only.
 */
final class WarmKeys {
  /**
   * A key's last round with {@code q} acks: its ballot, the value it chose, and the voters the
   * ballot's prepare went to ({@code preparedAt}, whose majority promised it).
   */
  record Warm(Ballot ballot, AcceptedValue chosen, List<Integer> preparedAt) {
    Warm {
      preparedAt = List.copyOf(preparedAt);
    }
  }

  private final LinkedHashMap<Key, Warm> warm;

  WarmKeys(int max) {
    this.warm =
        new LinkedHashMap<>(16, 0.75f, true) {
          @Override
          protected boolean removeEldestEntry(Map.Entry<Key, Warm> eldest) {
            return size() > max;
          }
        };
  }

  /** The key's warm state, or null: the key is cold. Counts as a use. */
  Warm get(Key key) {
    return warm.get(key);
  }

  void remember(Key key, Ballot ballot, AcceptedValue chosen, List<Integer> preparedAt) {
    warm.put(key, new Warm(ballot, chosen, preparedAt));
  }

  void forget(Key key) {
    warm.remove(key);
  }

  /**
   * Forgets the keys whose range's voters {@code change} moves more than one node away from their
   * ballot's prepare set.
   */
  void forgetChanged(PlacementChange change) {
    warm.entrySet()
        .removeIf(
            e ->
                change.replicasChanged(e.getKey())
                    && !usableAt(e.getValue().preparedAt(), change.next().replicasOf(e.getKey())));
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
