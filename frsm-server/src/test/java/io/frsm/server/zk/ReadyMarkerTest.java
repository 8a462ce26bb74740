package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ReadyMarkerTest {
  @Test
  void roundTrip_inAscendingOrder() {
    byte[] data = ReadyMarker.encode(Set.of(40, 3, 17));
    assertEquals("unreachable:3,17,40", new String(data, StandardCharsets.UTF_8));
    assertEquals(Set.of(3, 17, 40), ReadyMarker.decode(data));
  }

  @Test
  void emptyData_abstainsFromNothing_asMarkersWrittenBeforeTheField() {
    assertArrayEquals(new byte[0], ReadyMarker.encode(Set.of()));
    assertEquals(Set.of(), ReadyMarker.decode(new byte[0]));
    assertEquals(Set.of(), ReadyMarker.decode(null));
  }

  @Test
  void malformedData_isRefused() {
    for (String bad :
        new String[] {
          "unreachable:",
          "unreachable:1,,2",
          "unreachable:-1",
          "unreachable:1,1",
          "ranges:1",
          "unreachable:99999999999",
          "unreachable:1048576",
          "unreachable:1 ",
          "unreachable:x"
        }) {
      assertThrows(
          IllegalArgumentException.class,
          () -> ReadyMarker.decode(bad.getBytes(StandardCharsets.UTF_8)),
          bad);
    }
  }
}
