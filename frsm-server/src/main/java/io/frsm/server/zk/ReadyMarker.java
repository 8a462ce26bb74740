package io.frsm.server.zk;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;

/**
 * The data of a node's ready marker {@code /frsm/<cluster>/ready/<id>} (docs/FORMATS.md "ZooKeeper
 * layout"): the ranges the node does not compete for because it cannot reach a quorum of their
 * replicas (docs/PROTOCOL.md "Step-down and the quorum watch"). Empty data (every marker written
 * before this field existed): none. Otherwise UTF-8 {@code unreachable:} followed by the range
 * indexes in ascending decimal, comma-separated, e.g. {@code unreachable:3,17,40}.
 *
 * <p>A marker is only a hint for who competes for a range, never for safety; data that does not
 * parse (a newer writer, a forged or damaged znode) is refused with an {@link
 * IllegalArgumentException}, and the reader counts that node as abstaining from nothing.
 */
public final class ReadyMarker {
  private static final String PREFIX = "unreachable:";

  /** More ranges than a ring can have (4096 vnodes × 10000 nodes would not fit a znode anyway). */
  private static final int MAX_RANGES = 1 << 20;

  private ReadyMarker() {}

  public static byte[] encode(Set<Integer> unreachableRanges) {
    if (unreachableRanges.isEmpty()) {
      return new byte[0];
    }
    StringBuilder b = new StringBuilder(PREFIX);
    String sep = "";
    for (int range : new TreeSet<>(unreachableRanges)) {
      if (range < 0) {
        throw new IllegalArgumentException("negative range " + range);
      }
      b.append(sep).append(range);
      sep = ",";
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The ranges a marker's data names.
   *
   * @throws IllegalArgumentException if the data is not this format (naming what is wrong)
   */
  public static Set<Integer> decode(byte[] data) {
    if (data == null || data.length == 0) {
      return Set.of();
    }
    String text = new String(data, StandardCharsets.UTF_8);
    if (!text.startsWith(PREFIX) || text.length() == PREFIX.length()) {
      throw new IllegalArgumentException("not a ready marker's data: " + abbreviated(text));
    }
    Set<Integer> out = new TreeSet<>();
    for (String field : text.substring(PREFIX.length()).split(",", -1)) {
      if (field.isEmpty() || field.length() > 9 || !field.chars().allMatch(Character::isDigit)) {
        throw new IllegalArgumentException(
            "bad range '" + abbreviated(field) + "' in ready marker");
      }
      int range = Integer.parseInt(field);
      if (range >= MAX_RANGES || !out.add(range)) {
        throw new IllegalArgumentException("range " + range + " out of bounds or repeated");
      }
    }
    return Set.copyOf(out);
  }

  private static String abbreviated(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
