package io.frsm.server.membership;

import java.nio.charset.StandardCharsets;

/**
 * One membership change as requested and stored in ZooKeeper ({@code membership/change},
 * docs/FORMATS.md "ZooKeeper layout"): what is asked and the ring version it starts from. The plan
 * ({@link MembershipPlan}) is derived from these, so a resumed orchestrator recomputes the same
 * versions.
 *
 * <p>Stored as UTF-8 {@code v1|<kind>|<node>|<replacement or -1>|<base version>}; anything else is
 * refused by {@link #decode} with what is wrong.
 *
 * @param node the node added, decommissioned, or replaced (dead)
 * @param replacement the new node of a replace; -1 otherwise
 * @param baseVersion the newest ring version when the change was requested
 */
public record MembershipChange(Kind kind, int node, int replacement, long baseVersion) {
  /** What a change does. */
  public enum Kind {
    ADD,
    DECOMMISSION,
    REPLACE
  }

  /** At most this many bytes are read as a change. */
  static final int MAX_BYTES = 128;

  public MembershipChange {
    if (kind == null || node < 0 || baseVersion < 0) {
      throw new IllegalArgumentException(
          "a change needs a kind, a node id >= 0 and a base version >= 0");
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
  }

  public byte[] encode() {
    return ("v1|"
            + kind.name().toLowerCase(java.util.Locale.ROOT)
            + "|"
            + node
            + "|"
            + replacement
            + "|"
            + baseVersion)
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
    if (f.length != 5 || !f[0].equals("v1")) {
      throw new IllegalArgumentException("malformed membership change \"" + text + "\"");
    }
    try {
      Kind kind = Kind.valueOf(f[1].toUpperCase(java.util.Locale.ROOT));
      return new MembershipChange(
          kind, Integer.parseInt(f[2]), Integer.parseInt(f[3]), Long.parseLong(f[4]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "malformed membership change \"" + text + "\": " + e.getMessage(), e);
    }
  }

  @Override
  public String toString() {
    return switch (kind) {
          case ADD -> "add node " + node;
          case DECOMMISSION -> "decommission node " + node;
          case REPLACE -> "replace node " + node + " with node " + replacement;
        }
        + " (from ring version "
        + baseVersion
        + ")";
  }
}
