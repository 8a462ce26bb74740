package io.frsm.consensus.core;

/**
 * A map from {@code long} keys to non-null values without boxing: open addressing with linear
 * probing, at most half full, deletion by shifting the probe chain back (no tombstones). The
 * acceptor keeps its persists in flight here — a {@code HashMap<Long, ...>} cost a boxed key and an
 * entry per logged write. Single-threaded, as the core is.
 *
 * <p>Iteration order is the table's, not insertion order: callers must not let it reach an output
 * (the acceptor only collects the ids into a set).
 */
final class LongKeyedMap<V> {
  /** What {@link #forEach} hands each entry to. */
  @FunctionalInterface
  interface EntryConsumer<V> {
    void accept(long key, V value);
  }

  private long[] keys;
  private Object[] values; // null: a free slot
  private int size;

  LongKeyedMap() {
    keys = new long[16];
    values = new Object[16];
  }

  int size() {
    return size;
  }

  /** The value of {@code key}, or null. */
  @SuppressWarnings("unchecked")
  V get(long key) {
    int mask = keys.length - 1;
    for (int i = slot(key, mask); values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == key) {
        return (V) values[i];
      }
    }
    return null;
  }

  /** Maps {@code key} to {@code value} (non-null), replacing what it mapped to. */
  void put(long key, V value) {
    if (value == null) {
      throw new IllegalArgumentException("null value for key " + key);
    }
    if ((size + 1) * 2 > keys.length) {
      grow();
    }
    int mask = keys.length - 1;
    int i = slot(key, mask);
    for (; values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == key) {
        values[i] = value;
        return;
      }
    }
    keys[i] = key;
    values[i] = value;
    size++;
  }

  /** Removes {@code key}: what it mapped to, or null. */
  @SuppressWarnings("unchecked")
  V remove(long key) {
    int mask = keys.length - 1;
    int i = slot(key, mask);
    for (; values[i] != null; i = (i + 1) & mask) {
      if (keys[i] == key) {
        V old = (V) values[i];
        shiftBack(i, mask);
        size--;
        return old;
      }
    }
    return null;
  }

  /** Each entry, in the table's order. {@code action} must not change this map. */
  @SuppressWarnings("unchecked")
  void forEach(EntryConsumer<? super V> action) {
    for (int i = 0; i < keys.length; i++) {
      if (values[i] != null) {
        action.accept(keys[i], (V) values[i]);
      }
    }
  }

  /**
   * Frees slot {@code free} and moves later entries of its probe chain back, so that every entry
   * stays reachable from its home slot without crossing a free one.
   */
  private void shiftBack(int free, int mask) {
    for (int i = (free + 1) & mask; values[i] != null; i = (i + 1) & mask) {
      int home = slot(keys[i], mask);
      // Entry i may move to `free` only if its home is not in the cyclic range (free, i].
      boolean homeAfterFree = ((i - home) & mask) < ((i - free) & mask);
      if (!homeAfterFree) {
        keys[free] = keys[i];
        values[free] = values[i];
        free = i;
      }
    }
    values[free] = null;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new Object[oldKeys.length * 2];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      if (oldValues[j] != null) {
        int i = slot(oldKeys[j], mask);
        while (values[i] != null) {
          i = (i + 1) & mask;
        }
        keys[i] = oldKeys[j];
        values[i] = oldValues[j];
      }
    }
  }

  /** Fibonacci hashing: consecutive ids (as persist ids are) spread over the table. */
  private static int slot(long key, int mask) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  @Override
  public String toString() {
    return "LongKeyedMap[size=" + size + ", capacity=" + keys.length + "]";
  }
}
