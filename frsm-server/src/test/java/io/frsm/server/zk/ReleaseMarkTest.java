package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The release mark's bytes in a lease-generation znode (docs/FORMATS.md "ZooKeeper layout"). */
class ReleaseMarkTest {
  private static final HexFormat HEX = HexFormat.of();

  @Test
  void releaseMark_isTermHolderAndFlag_inThirteenBytes() {
    // term 7, holder 2, released
    assertEquals(
        7, RangeTermStore.releasedTerm(HEX.parseHex("0000000000000007" + "00000002" + "01")));
  }

  @Test
  void aBumpsDataOrAnythingElse_isNoMark() {
    assertEquals(0, RangeTermStore.releasedTerm(HEX.parseHex("0000000000000007" + "00000002")));
    assertEquals(
        0, RangeTermStore.releasedTerm(HEX.parseHex("0000000000000007" + "00000002" + "00")));
    assertEquals(0, RangeTermStore.releasedTerm(new byte[0]));
  }
}
