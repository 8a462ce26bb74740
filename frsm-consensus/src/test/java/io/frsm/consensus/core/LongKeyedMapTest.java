package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link LongKeyedMap} against a {@code HashMap} under the acceptor's pattern and at random. */
class LongKeyedMapTest {

  /** Applies the same random puts and removes to both maps and compares them after each step. */
  private static void compareWithHashMap(long seed, int steps, int keySpace) {
    SplittableRandom random = new SplittableRandom(seed);
    LongKeyedMap<String> map = new LongKeyedMap<>();
    Map<Long, String> expected = new HashMap<>();
    for (int step = 0; step < steps; step++) {
      long key = random.nextInt(keySpace) - keySpace / 4; // negative keys too
      if (random.nextInt(3) == 0) {
        assertEquals(expected.remove(key), map.remove(key), "remove " + key + " at " + step);
      } else {
        String value = "v" + step;
        expected.put(key, value);
        map.put(key, value);
      }
      assertEquals(expected.size(), map.size(), "size at " + step);
      long probe = random.nextInt(keySpace) - keySpace / 4;
      assertEquals(expected.get(probe), map.get(probe), "get " + probe + " at " + step);
    }
    Map<Long, String> seen = new HashMap<>();
    map.forEach((k, v) -> assertNull(seen.put(k, v), "key " + k + " seen twice"));
    assertEquals(expected, seen);
  }

  @Test
  void randomPutsAndRemoves_matchAHashMap() {
    for (long seed = 1; seed <= 20; seed++) {
      compareWithHashMap(seed, 5_000, 64); // dense: long probe chains, many back-shifts
      compareWithHashMap(seed, 5_000, 1 << 20); // sparse: growth
    }
  }

  @Test
  void persistsInFlight_rollingWindowOfIds_stayFindable() {
    // The acceptor's use: ids taken in order, finished a little out of order.
    LongKeyedMap<Long> map = new LongKeyedMap<>();
    long next = 0;
    for (int i = 0; i < 100_000; i++) {
      map.put(next, next);
      next++;
      if (map.size() > 40) {
        long done = next - 40 + (i % 7) - 3; // within the window, not the oldest
        Long removed = map.remove(done);
        if (removed != null) {
          assertEquals(done, removed.longValue());
        }
      }
    }
    long[] live = {0};
    map.forEach(
        (k, v) -> {
          assertEquals(k, v.longValue());
          live[0]++;
        });
    assertEquals(map.size(), live[0]);
  }
}
