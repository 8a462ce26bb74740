package io.frsm.server.zk;

import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Placement;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;

/**
 * The bytes of one stored ring version (docs/FORMATS.md "ZooKeeper layout", {@code
 * ring/versions/<version>}). Reader and writer side by side so the format cannot drift. Every field
 * read is bounded before it sizes anything, and the whole entry carries a CRC32C: a forged or
 * damaged znode is a {@link MalformedRingVersionException}, never an allocation sized by an
 * attacker or a half-read placement.
 *
 * <pre>
 * entry   := magic:u32 ("FRV1") version:u64 ranges:u32 range* retired:u32 node:u32*
 *            crc32c:u32                                    -- of every byte before it
 * range   := endToken:i64 voters:u16 node:u32* learners:u16 node:u32*
 * </pre>
 */
public final class RingVersionCodec {
  /** "FRV1". DO NOT CHANGE: stored in ZooKeeper. */
  static final int MAGIC = 0x46525631;

  /** Ranges an entry may hold: far above any ring (vnodes × nodes), far below a znode's size. */
  static final int MAX_RANGES = 1 << 16;

  /** Voters or learners of one range. */
  static final int MAX_SET = 64;

  /** Retired ids an entry may carry. */
  static final int MAX_RETIRED = 1 << 16;

  /** ZooKeeper's default znode bound (jute.maxbuffer, 1 MiB): an entry never exceeds it. */
  static final int MAX_BYTES = 1 << 20;

  private RingVersionCodec() {}

  public static byte[] encode(RingVersion entry) {
    Placement p = entry.placement();
    int size = 4 + 8 + 4 + 4 + 4 * entry.retired().size() + 4;
    for (int r = 0; r < p.rangeCount(); r++) {
      size += 8 + 2 + 4 * p.replicas(r).size() + 2 + 4 * p.learners(r).size();
    }
    if (p.rangeCount() > MAX_RANGES || entry.retired().size() > MAX_RETIRED || size > MAX_BYTES) {
      throw new IllegalArgumentException(
          "ring version "
              + entry.version()
              + " does not fit a ZooKeeper entry ("
              + size
              + " bytes, "
              + p.rangeCount()
              + " ranges)");
    }
    ByteBuffer b = ByteBuffer.allocate(size);
    b.putInt(MAGIC).putLong(p.ringVersion()).putInt(p.rangeCount());
    for (int r = 0; r < p.rangeCount(); r++) {
      b.putLong(p.endToken(r));
      putSet(b, p.replicas(r), r);
      putSet(b, p.learners(r), r);
    }
    b.putInt(entry.retired().size());
    entry.retired().stream().sorted().forEach(b::putInt);
    b.putInt(crc(b.array(), b.position()));
    return b.array();
  }

  private static void putSet(ByteBuffer b, List<Integer> nodes, int range) {
    if (nodes.size() > MAX_SET) {
      throw new IllegalArgumentException(
          "range " + range + " has " + nodes.size() + " nodes in one set, at most " + MAX_SET);
    }
    b.putShort((short) nodes.size());
    nodes.forEach(b::putInt);
  }

  /**
   * The entry {@code data} holds.
   *
   * @throws MalformedRingVersionException naming what is wrong: too short or long, bad magic or
   *     checksum, a count out of bounds, trailing bytes, or a placement the core would refuse
   */
  public static RingVersion decode(byte[] data) {
    if (data == null || data.length < 4 + 8 + 4 + 4 + 4 || data.length > MAX_BYTES) {
      throw new MalformedRingVersionException(
          "a ring version entry is 24 to " + MAX_BYTES + " bytes, was " + length(data));
    }
    int body = data.length - 4;
    int stored = ByteBuffer.wrap(data, body, 4).getInt();
    if (stored != crc(data, body)) {
      throw new MalformedRingVersionException("checksum mismatch (damaged or forged entry)");
    }
    ByteBuffer b = ByteBuffer.wrap(data, 0, body);
    try {
      int magic = b.getInt();
      if (magic != MAGIC) {
        throw new MalformedRingVersionException(
            "unknown format " + Integer.toHexString(magic) + ", expected FRV1");
      }
      long version = b.getLong();
      if (version < 1 || version > InputBounds.MAX_NUMBER) {
        throw new MalformedRingVersionException(
            "version " + version + " outside [1, " + InputBounds.MAX_NUMBER + "]");
      }
      int ranges = bounded(b.getInt(), 1, MAX_RANGES, "range count");
      List<Long> ends = new ArrayList<>(Math.min(ranges, body / 12));
      List<List<Integer>> voters = new ArrayList<>();
      List<List<Integer>> learners = new ArrayList<>();
      for (int r = 0; r < ranges; r++) {
        ends.add(b.getLong());
        voters.add(nodes(b, 1, "range " + r + "'s voter count"));
        learners.add(nodes(b, 0, "range " + r + "'s learner count"));
      }
      int retiredCount = bounded(b.getInt(), 0, MAX_RETIRED, "retired count");
      Set<Integer> retired = new HashSet<>();
      for (int i = 0; i < retiredCount; i++) {
        retired.add(nodeId(b.getInt()));
      }
      if (b.hasRemaining()) {
        throw new MalformedRingVersionException(b.remaining() + " bytes after the entry");
      }
      return new RingVersion(Placement.of(version, ends, voters, learners), retired);
    } catch (BufferUnderflowException truncated) {
      throw new MalformedRingVersionException("entry ends inside a field");
    } catch (MalformedRingVersionException e) {
      throw e;
    } catch (IllegalArgumentException refused) {
      throw new MalformedRingVersionException("not a valid placement: " + refused.getMessage());
    }
  }

  private static List<Integer> nodes(ByteBuffer b, int min, String what) {
    int count = bounded(Short.toUnsignedInt(b.getShort()), min, MAX_SET, what);
    List<Integer> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      nodes.add(nodeId(b.getInt()));
    }
    return nodes;
  }

  private static int nodeId(int id) {
    if (id < 0) {
      throw new MalformedRingVersionException("negative node id " + id);
    }
    return id;
  }

  private static int bounded(int value, int min, int max, String what) {
    if (value < min || value > max) {
      throw new MalformedRingVersionException(
          what + " " + value + " outside [" + min + ", " + max + "]");
    }
    return value;
  }

  private static String length(byte[] data) {
    return data == null ? "absent" : Integer.toString(data.length);
  }

  private static int crc(byte[] data, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, 0, length);
    return (int) crc.getValue();
  }

  /** A stored ring version that cannot be read: refused, with what is wrong. */
  public static final class MalformedRingVersionException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    MalformedRingVersionException(String message) {
      super("malformed ring version entry: " + message);
    }
  }
}
