package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.zk.RangeCopyRequests.Request;
import io.frsm.server.zk.RangeCopyRequests.State;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The copy request record (docs/FORMATS.md "ZooKeeper layout", {@code ring/copies}). */
class RangeCopyRequestsTest {
  @Test
  void everyState_roundTrips() throws Exception {
    Request open = Request.open(7, 4, 12);
    assertEquals(open, RangeCopyRequests.decode(RangeCopyRequests.encode(open)));
    assertEquals(open.done(), RangeCopyRequests.decode(RangeCopyRequests.encode(open.done())));
    Request failed = open.failed("from node 2: disk full ✗");
    assertEquals(failed, RangeCopyRequests.decode(RangeCopyRequests.encode(failed)));
    assertEquals(State.FAILED, failed.state());
  }

  @Test
  void aLongReason_isCutToFitARecord() throws Exception {
    Request failed = Request.open(1, 1, 1).failed("é".repeat(5_000));
    byte[] bytes = RangeCopyRequests.encode(failed);
    assertTrue(bytes.length <= RangeCopyRequests.MAX_BYTES, "" + bytes.length);
    Request back = RangeCopyRequests.decode(bytes);
    assertTrue(failed.reason().startsWith(back.reason()) && !back.reason().isEmpty());
  }

  @Test
  void everyFlippedBit_isRefused() {
    byte[] good = RangeCopyRequests.encode(Request.open(3, 2, 1).failed("x"));
    for (int bit = 0; bit < good.length * 8; bit++) {
      byte[] bad = good.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThrows(RangeCopyRequests.Malformed.class, () -> RangeCopyRequests.decode(bad));
    }
  }

  @Test
  void hostileBytes_areRefusedNeverThrownOtherwise() {
    Random random = new Random(42);
    for (int i = 0; i < 10_000; i++) {
      byte[] junk = new byte[random.nextInt(64)];
      random.nextBytes(junk);
      assertThrows(RangeCopyRequests.Malformed.class, () -> RangeCopyRequests.decode(junk));
    }
    assertThrows(RangeCopyRequests.Malformed.class, () -> RangeCopyRequests.decode(null));
    assertThrows(
        RangeCopyRequests.Malformed.class,
        () -> RangeCopyRequests.decode(new byte[RangeCopyRequests.MAX_BYTES + 1]));
  }

  @Test
  void aValidChecksumOverAnUnknownState_isRefused() {
    byte[] bytes = RangeCopyRequests.encode(Request.open(3, 2, 1));
    bytes[20] = 9; // the state byte
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    RangeCopyRequests.Malformed e =
        assertThrows(RangeCopyRequests.Malformed.class, () -> RangeCopyRequests.decode(bytes));
    assertTrue(e.getMessage().contains("unknown state"), e.getMessage());
  }

  @Test
  void names_areParsedStrictly() {
    assertEquals(
        new RangeCopyRequests.Name(5, 4, 12),
        RangeCopyRequests.parseName("0000000000000000005-4-12"));
    assertNull(RangeCopyRequests.parseName("5-4-12"), "version not 19 digits");
    assertNull(RangeCopyRequests.parseName("0000000000000000005-04-12"), "leading zero");
    assertNull(RangeCopyRequests.parseName("0000000000000000005-4-012"), "leading zero");
    assertNull(RangeCopyRequests.parseName("0000000000000000005-4"), "no range");
    assertNull(RangeCopyRequests.parseName("0000000000000000005--4-1"), "sign");
    assertNull(RangeCopyRequests.parseName("9999999999999999999-4-1"), "past a long");
    assertNull(RangeCopyRequests.parseName("garbage"));
    assertEquals(
        "/frsm/c/ring/copies/0000000000000000005-4-12", new ZkLayout("c").ringCopy(5, 4, 12));
  }
}
