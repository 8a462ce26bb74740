package io.frsm.client.transport;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node's view of the cluster as the client protocol carries it (docs/formats/wire.md
 * "Topology"): the members with their client addresses, and the ring's ranges with their replicas
 * and known leaders. Immutable once built; the constructor checks every invariant a router relies
 * on, so a forged or corrupt view is refused whole.
 *
 * @param ringVersion the ring's version; 0 before the cluster formed, and then {@code ranges} is
 *     empty
 * @param sequence grows with every view the sending node builds
 * @param createSettleMicros {@code T + 2ε} of the cluster in microseconds (how long a fence after a
 *     create with an unknown outcome waits), or 0 if the node does not know it
 */
public record TopologySnapshot(
    long ringVersion,
    long sequence,
    List<Member> members,
    List<Range> ranges,
    long createSettleMicros) {

  /** The longest host name a member may have (a DNS name's limit). */
  public static final int MAX_HOST_CHARS = 253;

  /**
   * The longest {@code T + 2ε} a view may carry (one hour): far above any sane bounded delay, and
   * low enough that a forged value cannot park a client's fence for days.
   */
  public static final long MAX_CREATE_SETTLE_MICROS = 3_600_000_000L;

  /** A member and where its client protocol listens. */
  public record Member(int nodeId, String host, int clientPort, boolean live) {
    public Member {
      if (nodeId < 0) {
        throw new IllegalArgumentException("node id must be >= 0, was " + nodeId);
      }
      if (host == null || host.isEmpty() || host.length() > MAX_HOST_CHARS) {
        throw new IllegalArgumentException(
            "member " + nodeId + " host must be 1-" + MAX_HOST_CHARS + " characters");
      }
      if (clientPort < 1 || clientPort > 65_535) {
        throw new IllegalArgumentException(
            "member " + nodeId + " client port out of range: " + clientPort);
      }
    }
  }

  /**
   * A ring range: the tokens after the previous range's end up to and including {@code endToken}.
   *
   * @param leader the node holding the range's lease, or -1 if not known
   */
  public record Range(long endToken, List<Integer> replicas, int leader) {
    public Range {
      replicas = List.copyOf(replicas);
      if (replicas.isEmpty()) {
        throw new IllegalArgumentException("range ending at " + endToken + " has no replica");
      }
      if (leader < -1) {
        throw new IllegalArgumentException("bad leader " + leader);
      }
    }
  }

  /** A view that does not carry the cluster's {@code T + 2ε}. */
  public TopologySnapshot(
      long ringVersion, long sequence, List<Member> members, List<Range> ranges) {
    this(ringVersion, sequence, members, ranges, 0);
  }

  public TopologySnapshot {
    members = List.copyOf(members);
    ranges = List.copyOf(ranges);
    if (ringVersion < 0 || sequence < 0) {
      throw new IllegalArgumentException(
          "ring version and sequence must be >= 0, were " + ringVersion + ", " + sequence);
    }
    if (createSettleMicros < 0 || createSettleMicros > MAX_CREATE_SETTLE_MICROS) {
      throw new IllegalArgumentException(
          "create settle must be 0-" + MAX_CREATE_SETTLE_MICROS + " µs, was " + createSettleMicros);
    }
    if (ringVersion == 0 && !ranges.isEmpty()) {
      throw new IllegalArgumentException("ranges without a ring version");
    }
    Map<Integer, Member> byId = new HashMap<>();
    for (Member m : members) {
      if (byId.put(m.nodeId(), m) != null) {
        throw new IllegalArgumentException("member " + m.nodeId() + " appears twice");
      }
    }
    Long previous = null;
    for (Range r : ranges) {
      if (previous != null && r.endToken() <= previous) {
        throw new IllegalArgumentException(
            "range end tokens must be strictly ascending: " + r.endToken() + " after " + previous);
      }
      previous = r.endToken();
      if (r.replicas().stream().distinct().count() != r.replicas().size()) {
        throw new IllegalArgumentException("range ending at " + r.endToken() + ": replica twice");
      }
      for (int id : r.replicas()) {
        if (!byId.containsKey(id)) {
          throw new IllegalArgumentException(
              "range ending at " + r.endToken() + ": replica " + id + " is not a member");
        }
      }
      if (r.leader() >= 0 && !byId.containsKey(r.leader())) {
        throw new IllegalArgumentException(
            "range ending at " + r.endToken() + ": leader " + r.leader() + " is not a member");
      }
    }
  }

  /** The member with {@code nodeId}, or null. */
  public Member member(int nodeId) {
    for (Member m : members) {
      if (m.nodeId() == nodeId) {
        return m;
      }
    }
    return null;
  }

  /** Equal views but for the sequence (nothing a router uses changed). */
  public boolean sameAs(TopologySnapshot other) {
    return other != null
        && ringVersion == other.ringVersion
        && createSettleMicros == other.createSettleMicros
        && members.equals(other.members)
        && ranges.equals(other.ranges);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TopologySnapshot t && sequence == t.sequence && sameAs(t);
  }

  @Override
  public int hashCode() {
    return Objects.hash(ringVersion, sequence, members, ranges, createSettleMicros);
  }
}
