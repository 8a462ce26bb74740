package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class BloomFilterTest {
  private static final int KEYS = 100_000;

  private static Key key(String prefix, int i) {
    return Key.wrap(
        ByteBuffer.allocate(prefix.length() + 4).put(prefix.getBytes()).putInt(i).array());
  }

  @Test
  void noFalseNegatives_andFalsePositivesNearTheory() throws Exception {
    BloomFilter written = BloomFilter.forKeys(KEYS, 10);
    for (int i = 0; i < KEYS; i++) {
      written.add(key("present", i));
    }
    // Through the on-disk form, as a reader sees it.
    BloomFilter filter = BloomFilter.parse(written.toSection(), Path.of("t.sst"), 0);
    assertEquals(7, filter.numHashes());
    for (int i = 0; i < KEYS; i++) {
      assertTrue(filter.mightContain(key("present", i)), "no false negative");
    }
    int falsePositives = 0;
    for (int i = 0; i < KEYS; i++) {
      if (filter.mightContain(key("absent", i))) {
        falsePositives++;
      }
    }
    double rate = (double) falsePositives / KEYS;
    // Theory for m/n = 10 and k = 7: (1 - e^(-7/10))^7 = 0.82%.
    assertTrue(rate < 0.02, "false-positive rate " + rate);
    assertTrue(rate > 0.004, "suspiciously low rate " + rate + ": is the filter probing at all?");
  }

  @Test
  void sequentialShortKeys_spreadEvenly() {
    // Keys differing only in their last byte: the second hash must not collapse them.
    BloomFilter filter = BloomFilter.forKeys(10_000, 10);
    for (int i = 0; i < 10_000; i++) {
      filter.add(Key.wrap(Integer.toString(i).getBytes()));
    }
    int falsePositives = 0;
    for (int i = 10_000; i < 110_000; i++) {
      if (filter.mightContain(Key.wrap(Integer.toString(i).getBytes()))) {
        falsePositives++;
      }
    }
    assertTrue(falsePositives < 2_000, falsePositives + " false positives of 100000");
  }

  @Test
  void zeroBitsPerKey_isNoFilter() throws Exception {
    BloomFilter none = BloomFilter.forKeys(1000, 0);
    BloomFilter parsed = BloomFilter.parse(none.toSection(), Path.of("t.sst"), 0);
    assertEquals(0, parsed.numHashes());
    assertTrue(parsed.mightContain(Key.wrap(new byte[] {1})));
  }

  @Test
  void size_isWholeWordsAndAtLeastOneWord() {
    Set<Long> sizes = new HashSet<>();
    for (long expected : new long[] {0, 1, 6, 7}) {
      sizes.add(BloomFilter.forKeys(expected, 10).numBits());
    }
    assertEquals(Set.of(64L, 128L), sizes, "at least one word; whole words");
  }
}
