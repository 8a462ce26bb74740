package io.frsm.server.ring;

import io.frsm.cell.Token;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The consistent-hashing ring (paper §5): every node owns {@code vnodes} tokens; a key's token
 * falls in the range ending at the next vnode token clockwise, and that range's replicas are the
 * first {@code replicationFactor} distinct nodes from there, preferring nodes on racks not used
 * yet. The first replica is the range's natural leader.
 *
 * <p>Immutable and pure: the same members, vnodes and replication factor give the same ring on
 * every node (vnode tokens are a hash of the node id). {@code version} orders rings: quorums use
 * the replica set of the proposer's ring version (docs/DESIGN.md "Ring").
 */
public final class Ring {
  private final long version;
  private final int replicationFactor;
  private final Map<Integer, NodeInfo> members;
  private final long[] tokens;
  private final int[] owners;

  /** replicas[i] = the replica set of the range ending at tokens[i]. */
  private final int[][] replicas;

  private Ring(
      long version,
      int replicationFactor,
      Map<Integer, NodeInfo> members,
      long[] tokens,
      int[] owners) {
    this.version = version;
    this.replicationFactor = replicationFactor;
    this.members = members;
    this.tokens = tokens;
    this.owners = owners;
    this.replicas = new int[tokens.length][];
    for (int i = 0; i < tokens.length; i++) {
      replicas[i] = placeReplicas(i);
    }
  }

  /**
   * Builds the ring of {@code nodes}.
   *
   * @throws IllegalArgumentException if there are fewer nodes than {@code replicationFactor},
   *     duplicate node ids, or a non-positive vnode count
   */
  public static Ring of(
      long version, Collection<NodeInfo> nodes, int vnodesPerNode, int replicationFactor) {
    if (vnodesPerNode < 1) {
      throw new IllegalArgumentException("vnodesPerNode must be >= 1, was " + vnodesPerNode);
    }
    if (replicationFactor < 1) {
      throw new IllegalArgumentException("replicationFactor must be >= 1");
    }
    if (nodes.size() < replicationFactor) {
      throw new IllegalArgumentException(
          "replication factor "
              + replicationFactor
              + " needs at least as many nodes, have "
              + nodes.size());
    }
    Map<Integer, NodeInfo> members = new TreeMap<>();
    for (NodeInfo n : nodes) {
      if (members.put(n.nodeId(), n) != null) {
        throw new IllegalArgumentException("duplicate node id " + n.nodeId());
      }
    }
    TreeMap<Long, Integer> byToken = new TreeMap<>();
    for (NodeInfo n : members.values()) {
      for (int v = 0; v < vnodesPerNode; v++) {
        long token = vnodeToken(n.nodeId(), v);
        // A collision of two 64-bit hashes is astronomically rare; skip to the next salt if so.
        for (int salt = 1; byToken.containsKey(token); salt++) {
          token = vnodeToken(n.nodeId(), v + salt * vnodesPerNode);
        }
        byToken.put(token, n.nodeId());
      }
    }
    long[] tokens = new long[byToken.size()];
    int[] owners = new int[byToken.size()];
    int i = 0;
    for (Map.Entry<Long, Integer> e : byToken.entrySet()) {
      tokens[i] = e.getKey();
      owners[i] = e.getValue();
      i++;
    }
    return new Ring(version, replicationFactor, Map.copyOf(members), tokens, owners);
  }

  /** DO NOT CHANGE: every node must derive the same vnode tokens for a node id. */
  static long vnodeToken(int nodeId, int vnode) {
    return Token.of(("frsm-vnode:" + nodeId + ":" + vnode).getBytes(StandardCharsets.UTF_8));
  }

  private int[] placeReplicas(int rangeIndex) {
    LinkedHashSet<Integer> chosen = new LinkedHashSet<>();
    Set<String> racksUsed = new HashSet<>();
    int n = tokens.length;
    // First pass: distinct nodes on racks not used yet.
    for (int step = 0; step < n && chosen.size() < replicationFactor; step++) {
      int owner = owners[(rangeIndex + step) % n];
      String rack = members.get(owner).rack();
      if (!chosen.contains(owner) && !racksUsed.contains(rack)) {
        chosen.add(owner);
        racksUsed.add(rack);
      }
    }
    // Fewer racks than replicas: fill with the next distinct nodes in ring order.
    for (int step = 0; step < n && chosen.size() < replicationFactor; step++) {
      chosen.add(owners[(rangeIndex + step) % n]);
    }
    assert chosen.size() == replicationFactor;
    return chosen.stream().mapToInt(Integer::intValue).toArray();
  }

  public long version() {
    return version;
  }

  public int replicationFactor() {
    return replicationFactor;
  }

  public Collection<NodeInfo> members() {
    return members.values();
  }

  public NodeInfo member(int nodeId) {
    NodeInfo n = members.get(nodeId);
    if (n == null) {
      throw new IllegalArgumentException("node " + nodeId + " is not in ring version " + version);
    }
    return n;
  }

  /**
   * Index of the range holding {@code token}: the first vnode token at or after it, wrapping. The
   * same index as the range's in {@link #placement()}.
   */
  public int rangeIndexOf(long token) {
    int i = Arrays.binarySearch(tokens, token);
    if (i >= 0) {
      return i;
    }
    int insertion = -i - 1;
    return insertion == tokens.length ? 0 : insertion;
  }

  /** The replicas of the range holding {@code token}, natural leader first. */
  public List<Integer> replicasFor(long token) {
    return Arrays.stream(replicas[rangeIndexOf(token)]).boxed().toList();
  }

  public int naturalLeaderFor(long token) {
    return replicas[rangeIndexOf(token)][0];
  }

  /** The range holding {@code token}. */
  public TokenRange rangeOf(long token) {
    int i = rangeIndexOf(token);
    long start = tokens[(i - 1 + tokens.length) % tokens.length];
    return new TokenRange(start, tokens[i]);
  }

  /** Every range with its replicas, in token order. */
  public List<RangeReplicas> ranges() {
    List<RangeReplicas> out = new ArrayList<>(tokens.length);
    for (int i = 0; i < tokens.length; i++) {
      long start = tokens[(i - 1 + tokens.length) % tokens.length];
      out.add(
          new RangeReplicas(
              new TokenRange(start, tokens[i]), Arrays.stream(replicas[i]).boxed().toList()));
    }
    return out;
  }

  public int rangeCount() {
    return tokens.length;
  }

  /** The replicas of range {@code rangeIndex}, natural leader first. */
  public List<Integer> replicasOfRange(int rangeIndex) {
    return Arrays.stream(replicas[rangeIndex]).boxed().toList();
  }

  /**
   * The consensus core's view of this ring: range {@code i} ends at vnode token {@code i} (range 0
   * wraps, as on the ring) and is replicated on the same nodes, natural leader first.
   */
  public Placement placement() {
    List<Long> ends = new ArrayList<>(tokens.length);
    List<List<Integer>> sets = new ArrayList<>(tokens.length);
    for (int i = 0; i < tokens.length; i++) {
      ends.add(tokens[i]);
      sets.add(replicasOfRange(i));
    }
    return Placement.of(ends, sets);
  }

  /** A range and its replicas, natural leader first. */
  public record RangeReplicas(TokenRange range, List<Integer> replicas) {}
}
