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

  @Test
  void truncatedCell_isMalformed() {
    Cell cell =
        Cell.accepted(
            Key.of(new byte[] {1, 2, 3}),
            AcceptedValue.live(1, 1, new Ballot(1, 1, 1), new byte[100], false),
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
