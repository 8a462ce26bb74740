package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The warm state (docs/DESIGN.md "Warm CAS"): the keys whose last round in this incarnation got
 * {@code q} acks, with that round's ballot and the value it chose, so the next CAS may skip its
 * prepare. In memory only and bounded: the least recently used key is forgotten first, and a crash
 * forgets all, which only costs a prepare.
 *
 * <p>Not thread-safe: the core's single thread only.
 */
final class WarmKeys {
  /** A key's last round with {@code q} acks: its ballot and the value it chose. */
  record Warm(Ballot ballot, AcceptedValue chosen) {}

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

  void remember(Key key, Ballot ballot, AcceptedValue chosen) {
    warm.put(key, new Warm(ballot, chosen));
  }

  void forget(Key key) {
    warm.remove(key);
  }

  /** Forgets the keys whose range's replica set {@code change} changes. */
  void forgetChanged(PlacementChange change) {
    warm.keySet().removeIf(change::replicasChanged);
  }
}
