package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class TokenSpanTest {
  @Test
  void plainRange_isOneSpanWithoutItsStart() {
    assertEquals(List.of(new TokenSpan(11, 20)), TokenSpan.ofRange(10, 20));
  }

  @Test
  void equalBounds_areTheWholeRing() {
    assertEquals(List.of(new TokenSpan(Long.MIN_VALUE, Long.MAX_VALUE)), TokenSpan.ofRange(5, 5));
  }

  @Test
  void wrappingRange_isItsTwoEnds() {
    assertEquals(
        List.of(new TokenSpan(Long.MIN_VALUE, -20), new TokenSpan(21, Long.MAX_VALUE)),
        TokenSpan.ofRange(20, -20));
    assertEquals(List.of(new TokenSpan(Long.MIN_VALUE, 3)), TokenSpan.ofRange(Long.MAX_VALUE, 3));
  }
}
