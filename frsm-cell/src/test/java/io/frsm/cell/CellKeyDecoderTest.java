package io.frsm.cell;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link CellKeyDecoder} against {@link CellCodec#decode} on the same bytes: valid cells of every
 * shape, and the same cells damaged (bytes flipped, truncated, lengths and fields set to invalid
 * values). Each input must be accepted by both, with the same key and end position, or rejected by
 * both.
 */
class CellKeyDecoderTest {

  @Test
  void everyShapeOfCell_sameKeyAndEndAsDecode() throws Exception {
    Random random = new Random(1);
    for (int i = 0; i < 20_000; i++) {
      Cell cell = randomCell(random);
      byte[] encoded = CellCodec.encode(cell);
      ByteBuffer in = ByteBuffer.wrap(encoded);
      assertArrayEquals(cell.key().bytesUnsafe(), CellKeyDecoder.decodeKey(in), cell.toString());
      assertEquals(encoded.length, in.position(), cell.toString());
    }
  }

  @Test
  void damagedCells_rejectedExactlyWhenDecodeRejectsThem() {
    Random random = new Random(2);
    int rejected = 0;
    int accepted = 0;
    for (int i = 0; i < 200_000; i++) {
      byte[] bytes = damage(CellCodec.encode(randomCell(random)), random);
      if (sameVerdict(bytes)) {
        accepted++;
      } else {
        rejected++;
      }
    }
    // Both outcomes must be well exercised for the comparison to mean anything.
    assertEquals(true, rejected > 20_000 && accepted > 20_000, rejected + " / " + accepted);
  }

  @Test
  void invalidFields_rejected() {
    Key k = Key.of(new byte[] {1, 2, 3});
    byte[] live =
        CellCodec.encode(
            Cell.accepted(
                k, AcceptedValue.live(1, 2, new Ballot(3, 4, 5), new byte[] {9}, true), 7));
    int epochAt = 1 + 1 + 3 + 16; // flags, key length, key, promised ballot
    byte[] negativeEpoch = live.clone();
    negativeEpoch[epochAt] = (byte) 0x80;
    assertRejectedByBoth(negativeEpoch);
    byte[] noneBallot = live.clone(); // the accepted ballot (after epoch and timestamp) as NONE
    java.util.Arrays.fill(noneBallot, epochAt + 16, epochAt + 32, (byte) 0);
    assertRejectedByBoth(noneBallot);
    byte[] unknownFlag = live.clone();
    unknownFlag[0] |= (byte) 0x40;
    assertRejectedByBoth(unknownFlag);
    byte[] deleteWithValue = live.clone();
    deleteWithValue[0] |= (byte) CellCodec.FLAG_DELETE;
    assertRejectedByBoth(deleteWithValue);
    byte[] huge = live.clone(); // a key length far past the end
    huge[1] = 0x7f;
    assertRejectedByBoth(huge);
  }

  private static void assertRejectedByBoth(byte[] bytes) {
    assertThrows(MalformedCellException.class, () -> CellCodec.decode(ByteBuffer.wrap(bytes)));
    assertThrows(
        MalformedCellException.class, () -> CellKeyDecoder.decodeKey(ByteBuffer.wrap(bytes)));
  }

  /** True if both accept (and agree on the key and the end), false if both reject. */
  private static boolean sameVerdict(byte[] bytes) {
    Cell decoded;
    ByteBuffer full = ByteBuffer.wrap(bytes);
    try {
      decoded = CellCodec.decode(full);
    } catch (MalformedCellException e) {
      decoded = null;
    }
    ByteBuffer keyOnly = ByteBuffer.wrap(bytes);
    byte[] key;
    try {
      key = CellKeyDecoder.decodeKey(keyOnly);
    } catch (MalformedCellException e) {
      key = null;
    } catch (RuntimeException e) {
      fail("an unchecked failure on " + java.util.HexFormat.of().formatHex(bytes), e);
      return false;
    }
    String where = java.util.HexFormat.of().formatHex(bytes);
    if (decoded == null || key == null) {
      assertEquals(decoded == null, key == null, "verdicts differ on " + where);
      return false;
    }
    assertArrayEquals(decoded.key().bytesUnsafe(), key, where);
    assertEquals(full.position(), keyOnly.position(), where);
    return true;
  }

  private static byte[] damage(byte[] bytes, Random random) {
    switch (random.nextInt(4)) {
      case 0 -> {
        byte[] b = bytes.clone();
        b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
        return b;
      }
      case 1 -> {
        return java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length));
      }
      case 2 -> {
        byte[] b = bytes.clone();
        b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        return b;
      }
      default -> {
        return bytes; // intact: must be accepted by both
      }
    }
  }

  static Cell randomCell(Random random) {
    byte[] keyBytes = new byte[random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(200)];
    random.nextBytes(keyBytes);
    Key key = Key.of(keyBytes);
    Ballot promised =
        random.nextBoolean()
            ? Ballot.NONE
            : new Ballot(1 + random.nextInt(1000), random.nextInt(9), random.nextInt(9));
    AcceptedValue accepted = null;
    if (random.nextBoolean()) {
      Ballot b = new Ballot(1 + random.nextInt(1000), random.nextInt(9), random.nextInt(9));
      IdempotencyToken token =
          random.nextBoolean() ? null : new IdempotencyToken(random.nextLong(), random.nextLong());
      if (random.nextInt(3) == 0) {
        accepted =
            AcceptedValue.delete(
                random.nextInt(5), random.nextInt(1000), b, random.nextBoolean(), token);
      } else {
        byte[] value = new byte[random.nextInt(4) == 0 ? 0 : random.nextInt(300)];
        random.nextBytes(value);
        accepted =
            AcceptedValue.live(
                random.nextInt(5), random.nextInt(1000), b, value, random.nextBoolean(), token);
      }
    }
    PurgeMark purge =
        random.nextInt(4) == 0
            ? new PurgeMark(random.nextInt(5), random.nextInt(1000), random.nextLong())
            : null;
    return new Cell(key, promised, accepted, purge, random.nextLong());
  }
}
