package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.zk.RingVersionCodec.MalformedRingVersionException;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The stored ring version entry (docs/FORMATS.md "ZooKeeper layout"): round trip, the bytes pinned,
 * and hostile bytes — each refused as a {@link MalformedRingVersionException} naming what is wrong,
 * never another exception and never a placement the core would refuse.
 */
class RingVersionCodecTest {
  /** Two ranges; range 1 has node 4 as a learner; node 9 retired. */
  static final RingVersion EXAMPLE =
      new RingVersion(
          Placement.of(
              1,
              List.of(-10L, Long.MAX_VALUE),
              List.of(List.of(1, 2, 3), List.of(2, 3, 1)),
              List.of(List.of(), List.of(4))),
          Set.of(9));

  @Test
  void roundTrip_keepsEveryField() {
    RingVersion decoded = RingVersionCodec.decode(RingVersionCodec.encode(EXAMPLE));
    assertEquals(EXAMPLE, decoded);
    assertEquals(List.of(4), decoded.placement().learners(1));
    assertEquals(Set.of(9), decoded.retired());
  }

  @Test
  void encoding_isPinned() {
    // DO NOT CHANGE: stored in ZooKeeper. The worked example of docs/FORMATS.md.
    assertEquals(
        "46525631" // FRV1
            + "0000000000000001" // version 1
            + "00000002" // 2 ranges
            + "fffffffffffffff6"
            + "0003"
            + "000000010000000200000003"
            + "0000"
            + "7fffffffffffffff"
            + "0003"
            + "000000020000000300000001"
            + "0001"
            + "00000004"
            + "00000001"
            + "00000009" // retired: 9
            + "73d11166",
        HexFormat.of().formatHex(RingVersionCodec.encode(EXAMPLE)));
  }

  @Test
  void truncatedAtEveryLength_isRefused() {
    byte[] good = RingVersionCodec.encode(EXAMPLE);
    for (int length = 0; length < good.length; length++) {
      byte[] cut = java.util.Arrays.copyOf(good, length);
      assertThrows(MalformedRingVersionException.class, () -> RingVersionCodec.decode(cut));
    }
    assertThrows(MalformedRingVersionException.class, () -> RingVersionCodec.decode(null));
  }

  @Test
  void everyFlippedBit_isRefused() {
    byte[] good = RingVersionCodec.encode(EXAMPLE);
    for (int bit = 0; bit < good.length * 8; bit++) {
      byte[] bad = good.clone();
      bad[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThrows(MalformedRingVersionException.class, () -> RingVersionCodec.decode(bad));
    }
  }

  @Test
  void checksummedButMalformed_isRefusedByName() {
    // A forger can compute the checksum: every field is still checked on its own.
    assertRefused("unknown format", body(0x12345678, 1, 1, Long.MAX_VALUE, 1, 0, 0));
    assertRefused("version 0 outside", body(RingVersionCodec.MAGIC, 0, 1, Long.MAX_VALUE, 1, 0, 0));
    assertRefused(
        "version -1 outside", body(RingVersionCodec.MAGIC, -1, 1, Long.MAX_VALUE, 1, 0, 0));
    assertRefused("range count -1", body(RingVersionCodec.MAGIC, 1, -1, Long.MAX_VALUE, 1, 0, 0));
    assertRefused(
        "range count 0 outside", body(RingVersionCodec.MAGIC, 1, 0, Long.MAX_VALUE, 1, 0, 0));
    assertRefused("voter count 0", body(RingVersionCodec.MAGIC, 1, 1, Long.MAX_VALUE, 0, 0, 0));
    assertRefused(
        "voter count 65535", body(RingVersionCodec.MAGIC, 1, 1, Long.MAX_VALUE, 0xFFFF, 0, 0));
    assertRefused("negative node id", body(RingVersionCodec.MAGIC, 1, 1, Long.MAX_VALUE, 1, -5, 0));
    assertRefused(
        "retired count -1",
        withCrc(
            ByteBuffer.allocate(4 + 8 + 4 + 8 + 2 + 4 + 2 + 4)
                .putInt(RingVersionCodec.MAGIC)
                .putLong(1)
                .putInt(1)
                .putLong(Long.MAX_VALUE)
                .putShort((short) 1)
                .putInt(1)
                .putShort((short) 0)
                .putInt(-1)
                .array()));
    byte[] trailing = java.util.Arrays.copyOf(stripCrc(RingVersionCodec.encode(EXAMPLE)), 0);
    byte[] good = stripCrc(RingVersionCodec.encode(EXAMPLE));
    trailing = java.util.Arrays.copyOf(good, good.length + 3);
    assertRefused("3 bytes after the entry", withCrc(trailing));
  }

  @Test
  void placementsTheCoreRefuses_areRefused() {
    // Duplicate voter, a learner that is a voter, end tokens that do not increase, a retired
    // member: each checksummed correctly, each refused as malformed.
    assertRefused(
        "not a valid placement",
        entry(List.of(5L), List.of(List.of(1, 1)), List.of(List.of()), List.of()));
    assertRefused(
        "not a valid placement",
        entry(List.of(5L), List.of(List.of(1, 2)), List.of(List.of(2)), List.of()));
    assertRefused(
        "not a valid placement",
        entry(
            List.of(5L, 5L),
            List.of(List.of(1), List.of(1)),
            List.of(List.of(), List.of()),
            List.of()));
    assertRefused(
        "not a valid placement",
        entry(List.of(5L), List.of(List.of(1, 2)), List.of(List.of()), List.of(2)));
  }

  @Test
  void randomBytes_areRefusedCleanly() {
    SplittableRandom random = new SplittableRandom(22);
    byte[] good = RingVersionCodec.encode(EXAMPLE);
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes;
      if (i % 2 == 0) {
        bytes = new byte[random.nextInt(200)];
        random.nextBytes(bytes);
      } else {
        // Valid checksum over random damage to a real entry: reaches the field checks.
        byte[] body = stripCrc(good);
        body[random.nextInt(body.length)] = (byte) random.nextInt();
        bytes = withCrc(body);
      }
      try {
        RingVersion decoded = RingVersionCodec.decode(bytes);
        // Damage that happens to stay a valid entry must round-trip exactly.
        assertArrayEquals(bytes, RingVersionCodec.encode(decoded));
      } catch (MalformedRingVersionException expected) {
        assertTrue(expected.getMessage().startsWith("malformed ring version entry: "));
      }
    }
  }

  private static byte[] entry(
      List<Long> ends,
      List<List<Integer>> voters,
      List<List<Integer>> learners,
      List<Integer> retired) {
    int size = 4 + 8 + 4 + 4 + 4 * retired.size();
    for (int r = 0; r < ends.size(); r++) {
      size += 8 + 2 + 4 * voters.get(r).size() + 2 + 4 * learners.get(r).size();
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(RingVersionCodec.MAGIC).putLong(1).putInt(ends.size());
    for (int r = 0; r < ends.size(); r++) {
      b.putLong(ends.get(r)).putShort((short) voters.get(r).size());
      voters.get(r).forEach(b::putInt);
      b.putShort((short) learners.get(r).size());
      learners.get(r).forEach(b::putInt);
    }
    b.putInt(retired.size());
    retired.forEach(b::putInt);
    return withCrc(b.array());
  }

  /** One range with {@code voters} voters all named {@code node}, no learners, no retired. */
  private static byte[] body(
      int magic, long version, int ranges, long end, int voters, int node, int learners) {
    ByteBuffer b = ByteBuffer.allocate(4 + 8 + 4 + 8 + 2 + 4 + 2 + 4);
    b.putInt(magic).putLong(version).putInt(ranges).putLong(end).putShort((short) voters);
    b.putInt(node).putShort((short) learners).putInt(0);
    return withCrc(b.array());
  }

  private static byte[] stripCrc(byte[] entry) {
    return java.util.Arrays.copyOf(entry, entry.length - 4);
  }

  private static byte[] withCrc(byte[] body) {
    CRC32C crc = new CRC32C();
    crc.update(body);
    return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
  }

  private static void assertRefused(String expected, byte[] data) {
    MalformedRingVersionException e =
        assertThrows(MalformedRingVersionException.class, () -> RingVersionCodec.decode(data));
    assertTrue(
        e.getMessage().contains(expected),
        () -> "expected '" + expected + "' in: " + e.getMessage());
  }
}
