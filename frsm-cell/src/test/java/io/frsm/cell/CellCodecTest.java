package io.frsm.cell;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class CellCodecTest {

  @Provide
  Arbitrary<Cell> cell() {
    return CellArbitraries.cells();
  }

  @Property(tries = 1000)
  void roundTrip_preservesEveryField(@ForAll("cell") Cell cell) throws Exception {
    ByteBuffer buf = ByteBuffer.allocate(CellCodec.encodedSize(cell));
    CellCodec.encode(cell, buf);
    assertFalse(buf.hasRemaining(), "encodedSize is exact");
    buf.flip();
    assertEquals(cell, CellCodec.decode(buf));
    assertFalse(buf.hasRemaining());
  }

  /** Pins the on-disk bytes of one cell: the worked example in docs/FORMATS.md. */
  @Test
  void encoding_isFrozen() {
    Key key = Key.of(new byte[] {'k', '1'});
    Cell cell =
        new Cell(
            key,
            new Ballot(5, 1, 2),
            AcceptedValue.live(4, 7, new Ballot(3, 2, 1), new byte[] {'v'}, true),
            null,
            9);
    assertEquals(
        "07" // flags: promised | accepted | chosen
            + "02"
            + "6b31" // key
            + "0000000000000005"
            + "00000001"
            + "00000002" // promised
            + "0000000000000004"
            + "0000000000000007" // epoch, timestamp
            + "0000000000000003"
            + "00000002"
            + "00000001" // accepted ballot
            + "01"
            + "76" // value
            + "0000000000000009", // write time
        HexFormat.of().formatHex(CellCodec.encode(cell)));
  }

  /** Bit 5 and the 16 token bytes after the value: the worked example in docs/FORMATS.md. */
  @Test
  void tokenEncoding_isFrozen() {
    Cell cell =
        Cell.accepted(
            Key.of(new byte[] {'k'}),
            AcceptedValue.live(
                4, 7, new Ballot(3, 2, 1), new byte[] {'v'}, true, new IdempotencyToken(1, 2)),
            9);
    assertEquals(
        "27" // flags: promised | accepted | chosen | token
            + "01"
            + "6b" // key
            + "0000000000000003"
            + "00000002"
            + "00000001" // promised (the accepting ballot)
            + "0000000000000004"
            + "0000000000000007" // epoch, timestamp
            + "0000000000000003"
            + "00000002"
            + "00000001" // accepted ballot
            + "01"
            + "76" // value
            + "0000000000000001"
            + "0000000000000002" // token
            + "0000000000000009", // write time
        HexFormat.of().formatHex(CellCodec.encode(cell)));
  }

  /** A cell written before bit 5 existed (the frozen bytes above) decodes as "no token". */
  @Test
  void oldCell_decodesWithoutToken() throws Exception {
    byte[] old =
        HexFormat.of()
            .parseHex(
                "0702"
                    + "6b31"
                    + "000000000000000500000001"
                    + "00000002"
                    + "0000000000000004"
                    + "0000000000000007"
                    + "000000000000000300000002"
                    + "00000001"
                    + "0176"
                    + "0000000000000009");
    Cell cell = CellCodec.decode(ByteBuffer.wrap(old));
    assertEquals(null, cell.accepted().token());
    assertEquals(7, cell.accepted().timestamp());
  }

  @Test
  void tokenFlagWithoutAcceptedValue_isMalformed() {
    ByteBuffer buf = ByteBuffer.wrap(new byte[] {0x20, 1, 'k', 0, 0, 0, 0, 0, 0, 0, 0});
    assertThrows(MalformedCellException.class, () -> CellCodec.decode(buf));
  }

  /**
   * Every single bit flip of a tokened cell either fails to decode or decodes to a different cell:
   * no flip silently keeps the cell while dropping, adding or changing the token unnoticed as the
   * same value (the commit log's CRC catches the rest; this checks the codec never crashes).
   */
  @Test
  void bitFlips_ofTokenedCell_neverCrashTheDecoder() {
    Cell cell =
        Cell.accepted(
            Key.of(new byte[] {'k', '2'}),
            AcceptedValue.live(
                1, 2, new Ballot(3, 1, 0), new byte[] {9, 8}, false, new IdempotencyToken(-1, 5)),
            11);
    byte[] bytes = CellCodec.encode(cell);
    for (int bit = 0; bit < bytes.length * 8; bit++) {
      byte[] flipped = bytes.clone();
      flipped[bit / 8] ^= (byte) (1 << (bit % 8));
      try {
        Cell decoded = CellCodec.decode(ByteBuffer.wrap(flipped));
        assertFalse(decoded.equals(cell), "bit " + bit + " flipped yet decodes equal");
      } catch (MalformedCellException expected) {
        // the decoder refused it: fine
      }
    }
  }

  @Test
  void truncatedCell_isMalformed() {
    Cell cell =
        Cell.accepted(
            Key.of(new byte[] {1, 2, 3}),
            AcceptedValue.live(
                1, 1, new Ballot(1, 1, 1), new byte[100], false, new IdempotencyToken(7, 7)),
            0);
    byte[] bytes = CellCodec.encode(cell);
    for (int cut = 0; cut < bytes.length; cut++) {
      ByteBuffer partial = ByteBuffer.wrap(bytes, 0, cut);
      assertThrows(MalformedCellException.class, () -> CellCodec.decode(partial), "cut " + cut);
    }
  }

  @Test
  void hugeLength_isMalformedNotAllocated() {
    ByteBuffer buf = ByteBuffer.allocate(16);
    buf.put((byte) 0);
    CellCodec.putVarint(buf, Integer.MAX_VALUE);
    buf.flip();
    assertThrows(MalformedCellException.class, () -> CellCodec.decode(buf));
  }

  @Test
  void unknownFlags_areMalformed() {
    ByteBuffer buf = ByteBuffer.wrap(new byte[] {(byte) 0x80, 0});
    assertThrows(MalformedCellException.class, () -> CellCodec.decode(buf));
  }

  @Test
  void varint_roundTrips() throws Exception {
    for (int v : new int[] {0, 1, 127, 128, 300, 16383, 16384, 1 << 21, Integer.MAX_VALUE}) {
      ByteBuffer buf = ByteBuffer.allocate(5);
      CellCodec.putVarint(buf, v);
      assertEquals(CellCodec.varintSize(v), buf.position());
      buf.flip();
      assertEquals(v, CellCodec.getVarint(buf));
    }
  }

  @Test
  void token_matchesMurmur3ReferenceVectors() {
    // First 64 bits (signed) of MurmurHash3_x64_128, seed 0, from an independent implementation
    // (Python mmh3.hash64(data, 0, signed=True)[0]). Inputs cover the empty key, tails of 1, 5, 14
    // and 11 bytes, and one full 16-byte block plus a 1-byte tail.
    assertEquals(0L, Token.of(new byte[0]));
    assertEquals(5303797501861836210L, Token.of(ascii("k")));
    assertEquals(-3758069500696749310L, Token.of(ascii("hello")));
    assertEquals(-9156101030449631699L, Token.of(ascii("frsm-vnode:3:1")));
    assertEquals(
        -2068352364225029268L, Token.of(ascii("The quick brown fox jumps over the lazy dog")));
    byte[] seventeen = new byte[17];
    for (int i = 0; i < seventeen.length; i++) {
      seventeen[i] = (byte) i;
    }
    assertEquals(6662781046685680142L, Token.of(seventeen));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  }
}
