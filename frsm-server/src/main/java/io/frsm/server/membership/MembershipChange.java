package io.frsm.server.membership;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One membership change as requested and stored in ZooKeeper ({@code membership/change},
 * docs/FORMATS.md "ZooKeeper layout"): what is asked and the ring version it starts from. The plan
 * ({@link MembershipPlan}) is derived from these, so a resumed orchestrator recomputes the same
 * versions.
 *
 * <p>Stored as UTF-8 {@code v1|<kind>|<node>|<replacement or -1>|<base version>}, followed by
 * {@code |<ranges per node>} when that is above 0, and for a repair {@code
 * v1|repair|<node>|-1|<base version>|<range>,<range>,...}; anything else is refused by {@link
 * #decode} with what is wrong. A change stored without the ranges per node (by a version before
 * they existed) is planned as it was then: all ranges in one batch.
 *
 * @param node the node added, decommissioned, replaced (dead) or repaired
 * @param replacement the new node of a replace; -1 otherwise
 * @param baseVersion the newest ring version when the change was requested
 * @param ranges for a repair, the ranges (ascending, distinct) the node is demoted to a learner of
 *     while its quarantine is repaired; empty for every other kind
 * @param rangesPerNode how many changed ranges per settling node each promotion step takes ({@link
 *     MembershipPlan}); 0: all in one step; always 0 for a repair
 */
public record MembershipChange(
    Kind kind,
    int node,
    int replacement,
    long baseVersion,
    List<Integer> ranges,
    int rangesPerNode) {
  /** What a change does. */
  public enum Kind {
    ADD,
    DECOMMISSION,
    REPLACE,
    /** Repairs a node's quarantined storage (docs/PROTOCOL.md "Corrupt storage"). */
    REPAIR
  }

  /** At most this many bytes are read as a change (a repair lists its ranges). */
  static final int MAX_BYTES = 1 << 16;

  /** At most this many ranges in a repair (as many as a ring version may hold). */
  static final int MAX_RANGES = 1 << 13;

  /** At most this many changed ranges per node and step (as many as a ring version may hold). */
  static final int MAX_RANGES_PER_NODE = MAX_RANGES;

  /** A change of any kind but {@link Kind#REPAIR}, all its ranges in one step. */
  public MembershipChange(Kind kind, int node, int replacement, long baseVersion) {
    this(kind, node, replacement, baseVersion, List.of(), 0);
  }

  /** A change of any kind but {@link Kind#REPAIR}, in steps of {@code rangesPerNode}. */
  public MembershipChange(
      Kind kind, int node, int replacement, long baseVersion, int rangesPerNode) {
    this(kind, node, replacement, baseVersion, List.of(), rangesPerNode);
  }

  /** A repair of {@code ranges}. */
  public MembershipChange(
      Kind kind, int node, int replacement, long baseVersion, List<Integer> ranges) {
    this(kind, node, replacement, baseVersion, ranges, 0);
  }

  public MembershipChange {
    if (kind == null || node < 0 || baseVersion < 0 || ranges == null) {
      throw new IllegalArgumentException(
          "a change needs a kind, a node id >= 0 and a base version >= 0");
    }
    ranges = List.copyOf(ranges);
    if ((kind == Kind.REPAIR) == ranges.isEmpty()) {
      throw new IllegalArgumentException("ranges are given exactly for a repair, at least one");
    }
    if (ranges.size() > MAX_RANGES) {
      throw new IllegalArgumentException("a repair names at most " + MAX_RANGES + " ranges");
    }
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i) < 0 || (i > 0 && ranges.get(i) <= ranges.get(i - 1))) {
        throw new IllegalArgumentException(
            "a repair's ranges are ascending, distinct and >= 0: " + ranges);
      }
    }
    if ((kind == Kind.REPLACE) != (replacement >= 0)) {
      throw new IllegalArgumentException("a replacement node is given exactly for a replace");
    }
    if (kind != Kind.REPLACE && replacement != -1) {
      throw new IllegalArgumentException("no replacement for " + kind);
    }
    if (replacement == node) {
      throw new IllegalArgumentException("node " + node + " cannot replace itself");
    }
    checkRangesPerNode(rangesPerNode);
    if (kind == Kind.REPAIR && rangesPerNode != 0) {
      throw new IllegalArgumentException("a repair moves its ranges in one step");
    }
  }

  /**
   * @throws IllegalArgumentException unless {@code rangesPerNode} is 0 (all at once) to {@link
   *     #MAX_RANGES_PER_NODE}
   */
  static void checkRangesPerNode(int rangesPerNode) {
    if (rangesPerNode < 0 || rangesPerNode > MAX_RANGES_PER_NODE) {
      throw new IllegalArgumentException(
          "ranges per node and step are 0 (all at once) to "
              + MAX_RANGES_PER_NODE
              + ", was "
              + rangesPerNode);
    }
  }

  public byte[] encode() {
    return ("v1|"
            + kind.name().toLowerCase(java.util.Locale.ROOT)
            + "|"
            + node
            + "|"
            + replacement
            + "|"
            + baseVersion
            + (kind == Kind.REPAIR ? "|" + rangeList() : "")
            + (rangesPerNode > 0 ? "|" + rangesPerNode : ""))
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * @throws IllegalArgumentException naming what is wrong with {@code data}
   */
  public static MembershipChange decode(byte[] data) {
    if (data == null || data.length > MAX_BYTES) {
      throw new IllegalArgumentException(
          "a stored membership change is at most " + MAX_BYTES + " bytes");
    }
    String text = new String(data, StandardCharsets.UTF_8);
    String[] f = text.split("\\|", -1);
    boolean repair = f.length == 6 && f[1].equals("repair");
    boolean stepped = f.length == 6 && !repair;
    if ((f.length != 5 && !repair && !stepped) || !f[0].equals("v1")) {
      throw new IllegalArgumentException("malformed membership change \"" + text + "\"");
    }
    try {
      Kind kind = Kind.valueOf(f[1].toUpperCase(java.util.Locale.ROOT));
      List<Integer> ranges = new ArrayList<>();
      if (repair) {
        String[] names = f[5].split(",", -1);
        if (names.length > MAX_RANGES) {
          throw new IllegalArgumentException("more than " + MAX_RANGES + " ranges");
        }
        for (String r : names) {
          ranges.add(Integer.parseInt(r));
        }
      }
      int rangesPerNode = 0;
      if (stepped) {
        rangesPerNode = Integer.parseInt(f[5]);
        if (rangesPerNode == 0 || !f[5].equals(Integer.toString(rangesPerNode))) {
          // Written only above 0, in canonical decimal: a cancel compares the bytes exactly.
          throw new IllegalArgumentException("ranges per node \"" + f[5] + "\" is not canonical");
        }
      }
      return new MembershipChange(
          kind,
          Integer.parseInt(f[2]),
          Integer.parseInt(f[3]),
          Long.parseLong(f[4]),
          ranges,
          rangesPerNode);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "malformed membership change \"" + text + "\": " + e.getMessage(), e);
    }
  }

  private String rangeList() {
    StringBuilder b = new StringBuilder();
    for (int r : ranges) {
      b.append(b.length() == 0 ? "" : ",").append(r);
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return switch (kind) {
          case ADD -> "add node " + node;
          case DECOMMISSION -> "decommission node " + node;
          case REPLACE -> "replace node " + node + " with node " + replacement;
          case REPAIR -> "repair node " + node + " in ranges " + ranges;
        }
        + " (from ring version "
        + baseVersion
        + (rangesPerNode == 1 ? ", 1 range per node and step" : "")
        + (rangesPerNode > 1 ? ", " + rangesPerNode + " ranges per node and step" : "")
        + ")";
  }
}
