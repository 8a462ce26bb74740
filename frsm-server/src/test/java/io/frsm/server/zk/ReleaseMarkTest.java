package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

  @Test
  void aHandOverWhoseMarkFailed_saysSo_notThatASuccessorBumped() {
    // A stop with ZooKeeper gone once logged "a successor bumped first" after each failed mark.
    String failed = HeldTerms.handOverOutcome(false, true, "ZooKeeper answered CONNECTIONLOSS");
    assertTrue(failed.startsWith("the release mark was not written (ZooKeeper"), failed);
    assertTrue(failed.endsWith("the successor waits out the lease"), failed);
    assertEquals(
        "a successor bumped first; it waits out the lease",
        HeldTerms.handOverOutcome(false, true, null));
    assertEquals(
        "marked released, the successor need not wait",
        HeldTerms.handOverOutcome(true, true, null));
    assertTrue(HeldTerms.handOverOutcome(false, false, null).startsWith("not clean"));
  }
}
