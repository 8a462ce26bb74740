package io.frsm.lsm.memtable;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class TokenSortTest {

  /** The reference: a comparator sort of boxed positions by signed token, stable. */
  private static int[] referenceOrder(long[] tokens, int count) {
    return IntStream.range(0, count)
        .boxed()
        .sorted(Comparator.comparingLong(i -> tokens[i]))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  @Property(tries = 300)
  void order_isTheSignedTokenOrder_equalTokensInPositionOrder(
      @ForAll @Size(max = 300) List<Long> drawn) {
    // Repeats and small values make equal tokens and shared digits frequent.
    long[] tokens = new long[drawn.size() + 3];
    for (int i = 0; i < drawn.size(); i++) {
      tokens[i] = i % 5 == 0 ? drawn.get(i) % 4 : drawn.get(i);
    }
    tokens[drawn.size()] = Long.MIN_VALUE;
    tokens[drawn.size() + 1] = Long.MAX_VALUE;
    tokens[drawn.size() + 2] = -1;
    assertArrayEquals(
        referenceOrder(tokens, tokens.length), TokenSort.order(tokens, tokens.length));
  }

  @Test
  void onlyTheFirstCountTokensAreOrdered_andTheInputIsUntouched() {
    long[] tokens = {5, -7, 3, Long.MIN_VALUE, 0};
    long[] copy = tokens.clone();
    assertArrayEquals(new int[] {1, 2, 0}, TokenSort.order(tokens, 3));
    assertArrayEquals(copy, tokens);
    assertEquals(0, TokenSort.order(tokens, 0).length);
  }

  @Test
  void countOutsideTheArray_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> TokenSort.order(new long[2], 3));
    assertThrows(IllegalArgumentException.class, () -> TokenSort.order(new long[2], -1));
  }

  @Test
  void manyTokensSharingHighDigits_sortLikeTheReference() {
    long[] tokens = new long[10_000];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = 0x7000_0000_0000_0000L + (i * 7919L) % 3000; // only the low digits differ
    }
    int[] order = TokenSort.order(tokens, tokens.length);
    assertArrayEquals(referenceOrder(tokens, tokens.length), order);
    long[] sorted = Arrays.stream(order).mapToLong(i -> tokens[i]).toArray();
    long[] expected = tokens.clone();
    Arrays.sort(expected);
    assertArrayEquals(expected, sorted);
  }
}
