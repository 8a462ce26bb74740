package io.frsm.server.zk;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * Bulk copies of a range to its incoming learner, asked through ZooKeeper (docs/PROTOCOL.md
 * "Membership changes", "Copy"): the orchestrator, on whatever node it runs, creates {@code
 * ring/copies/<version>-<node>-<range>} open once the learner installed the version; the learner's
 * {@code RangeCopyAgent} pulls the range from a voter and writes the outcome into the same znode.
 * The znode outlives both sides, so a resumed orchestrator or a restarted learner sees where the
 * copy stands.
 *
 * <pre>
 * record := magic:u32 ("FRC1") version:u64 node:u32 range:u32 state:u8 (0 open, 1 done, 2 failed)
 *           reasonLength:u16 reason:utf8[reasonLength]     -- why it failed; why a done copy placed
 *                                                             no data; empty for a copy done with it
 *           crc32c:u32                                      -- of every byte before it
 * </pre>
 *
 * <p>Hostile bytes: a name that is not {@code <19 digits>-<node>-<range>}, a record that does not
 * decode (length, magic, checksum, unknown state, bad UTF-8) or names other fields than its znode's
 * name is a {@link Malformed} to the reader, which skips it: nothing read here sizes an allocation
 * beyond {@link #MAX_BYTES} or stops a node. Thread-safe (stateless over a Curator client).
 */
public final class RangeCopyRequests {
  /** "FRC1". DO NOT CHANGE: stored in ZooKeeper. */
  static final int MAGIC = 0x46524331;

  /** A record is never longer: the reason is cut to fit. */
  public static final int MAX_BYTES = 1024;

  private static final int FIXED_BYTES = 4 + 8 + 4 + 4 + 1 + 2 + 4;
  private static final int MAX_REASON_BYTES = MAX_BYTES - FIXED_BYTES;

  /** Where a copy stands. The byte values are stored: DO NOT CHANGE. */
  public enum State {
    OPEN,
    DONE,
    FAILED
  }

  /** A copy of {@code range} to {@code node} at ring {@code version}. */
  public record Request(long version, int node, int range, State state, String reason) {
    public Request {
      if (version < 0 || node < 0 || range < 0 || state == null || reason == null) {
        throw new IllegalArgumentException("a copy request needs a version, node and range >= 0");
      }
    }

    /** Open: nobody finished it yet. */
    public static Request open(long version, int node, int range) {
      return new Request(version, node, range, State.OPEN, "");
    }

    /** Done, the range's data placed on the learner. */
    public Request done() {
      return new Request(version, node, range, State.DONE, "");
    }

    /**
     * Done without placing the range's data ({@code why} says why, not empty): the learner step's
     * range is settled as if no copy ran.
     */
    public Request doneWithoutData(String why) {
      if (why == null || why.isEmpty()) {
        throw new IllegalArgumentException("a copy done without data says why");
      }
      return new Request(version, node, range, State.DONE, why);
    }

    /** Whether the copy is done and placed the range's data (a done record with no remark). */
    public boolean placedData() {
      return state == State.DONE && reason.isEmpty();
    }

    public Request failed(String why) {
      return new Request(version, node, range, State.FAILED, why == null ? "" : why);
    }

    @Override
    public String toString() {
      return "copy of range "
          + range
          + " to node "
          + node
          + " at ring version "
          + version
          + ": "
          + state.name().toLowerCase(java.util.Locale.ROOT)
          + (reason.isEmpty() ? "" : " (" + reason + ")");
    }
  }

  /** A znode under {@code ring/copies} that is not a well-formed request; skipped. */
  public static final class Malformed extends Exception {
    private static final long serialVersionUID = 1L;

    Malformed(String message) {
      super(message);
    }
  }

  private final CuratorFramework zk;
  private final ZkLayout layout;

  public RangeCopyRequests(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /** Asks for the copy (no change if asked before: a resumed change keeps its outcome). */
  public void ask(long version, int node, int range) throws Exception {
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(
              layout.ringCopy(version, node, range), encode(Request.open(version, node, range)));
    } catch (KeeperException.NodeExistsException asked) {
      // Asked before.
    }
  }

  /** Records the outcome; false if the request is gone (its change was cancelled or finished). */
  public boolean answer(Request outcome) throws Exception {
    try {
      zk.setData()
          .forPath(
              layout.ringCopy(outcome.version(), outcome.node(), outcome.range()), encode(outcome));
      return true;
    } catch (KeeperException.NoNodeException withdrawn) {
      return false;
    }
  }

  /**
   * The request, or null if never asked; sets {@code watcher} if not null.
   *
   * @throws Malformed if its record does not decode or names other fields than its path
   */
  public Request get(long version, int node, int range, Watcher watcher) throws Exception {
    String path = layout.ringCopy(version, node, range);
    byte[] data;
    try {
      data =
          watcher == null
              ? zk.getData().forPath(path)
              : zk.getData().usingWatcher(watcher).forPath(path);
    } catch (KeeperException.NoNodeException never) {
      return null;
    }
    Request r = decode(data);
    if (r.version() != version || r.node() != node || r.range() != range) {
      throw new Malformed(path + " holds a record of another copy: " + r);
    }
    return r;
  }

  /** A request's place in {@code ring/copies}: what its name says. */
  public record Name(long version, int node, int range) {}

  /**
   * The well-formed names under {@code ring/copies} (others are skipped).
   *
   * @param watcher set on the parent (fires once when a child is added or removed), or null
   */
  public List<Name> names(Watcher watcher) throws Exception {
    List<String> children;
    try {
      children =
          watcher == null
              ? zk.getChildren().forPath(layout.ringCopies())
              : zk.getChildren().usingWatcher(watcher).forPath(layout.ringCopies());
    } catch (KeeperException.NoNodeException none) {
      if (watcher != null
          && zk.checkExists().usingWatcher(watcher).forPath(layout.ringCopies()) != null) {
        return names(watcher);
      }
      return List.of();
    }
    List<Name> result = new ArrayList<>();
    for (String child : children) {
      Name n = parseName(child);
      if (n != null) {
        result.add(n);
      }
    }
    return result;
  }

  /** Removes the request (a finished or cancelled change's); nothing if it is gone. */
  public void remove(Name name) throws Exception {
    try {
      zk.delete().forPath(layout.ringCopy(name.version(), name.node(), name.range()));
    } catch (KeeperException.NoNodeException gone) {
      // Removed already.
    }
  }

  /** {@code <19 digits>-<node>-<range>}, or null. */
  static Name parseName(String name) {
    String[] f = name.split("-", -1);
    if (f.length != 3 || !digits(f[0], 19) || f[0].length() != 19) {
      return null;
    }
    int node = RangeSettleRequests.parseRange(f[1]);
    int range = RangeSettleRequests.parseRange(f[2]);
    if (node < 0
        || range < 0
        || !f[1].equals(Integer.toString(node))
        || !f[2].equals(Integer.toString(range))) {
      return null;
    }
    long version;
    try {
      version = Long.parseLong(f[0]);
    } catch (NumberFormatException tooLarge) {
      return null;
    }
    return version < 0 ? null : new Name(version, node, range);
  }

  private static boolean digits(String s, int max) {
    return !s.isEmpty() && s.length() <= max && s.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** The record of {@code r} (its reason cut to fit). */
  public static byte[] encode(Request r) {
    byte[] reason = cut(r.reason());
    ByteBuffer b = ByteBuffer.allocate(FIXED_BYTES + reason.length);
    b.putInt(MAGIC)
        .putLong(r.version())
        .putInt(r.node())
        .putInt(r.range())
        .put((byte) r.state().ordinal())
        .putShort((short) reason.length)
        .put(reason);
    b.putInt(crc(b.array(), b.position()));
    return b.array();
  }

  /** The reason's UTF-8, cut on a character boundary to fit a record. */
  private static byte[] cut(String reason) {
    String s = reason;
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    while (bytes.length > MAX_REASON_BYTES) {
      s = s.substring(0, s.length() - Math.max(1, (bytes.length - MAX_REASON_BYTES) / 4));
      bytes = s.getBytes(StandardCharsets.UTF_8);
    }
    return bytes;
  }

  static Request decode(byte[] data) throws Malformed {
    if (data == null || data.length < FIXED_BYTES || data.length > MAX_BYTES) {
      throw new Malformed("a copy request is " + FIXED_BYTES + " to " + MAX_BYTES + " bytes long");
    }
    int body = data.length - 4;
    ByteBuffer b = ByteBuffer.wrap(data);
    if (b.getInt(body) != crc(data, body)) {
      throw new Malformed("a copy request's checksum does not match");
    }
    try {
      if (b.getInt() != MAGIC) {
        throw new Malformed("not a copy request (magic)");
      }
      long version = b.getLong();
      int node = b.getInt();
      int range = b.getInt();
      int state = b.get();
      int reasonLength = Short.toUnsignedInt(b.getShort());
      if (version < 0 || node < 0 || range < 0) {
        throw new Malformed("a copy request names a negative version, node or range");
      }
      if (state < 0 || state >= State.values().length) {
        throw new Malformed("a copy request has the unknown state " + state);
      }
      if (reasonLength != body - b.position()) {
        throw new Malformed("a copy request's reason length does not match its size");
      }
      byte[] reason = new byte[reasonLength];
      b.get(reason);
      String text =
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(reason))
              .toString();
      return new Request(version, node, range, State.values()[state], text);
    } catch (BufferUnderflowException | CharacterCodingException e) {
      throw new Malformed("a copy request is cut short or its reason is not UTF-8");
    }
  }

  private static int crc(byte[] data, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, 0, length);
    return (int) crc.getValue();
  }
}
