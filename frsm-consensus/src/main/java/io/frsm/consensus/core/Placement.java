package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which nodes replicate which keys, at one ring version: the token ring cut into ranges, each with
 * its replica set. The same cut as the server's consistent-hashing ring: range {@code i} holds the
 * tokens in {@code (end[i-1], end[i]]}; range 0 also wraps past {@link Long#MAX_VALUE}, so it holds
 * {@code (end[last], MAX] ∪ [MIN, end[0]]}. Ranges are also the unit of leadership: each has its
 * own term and lease ({@link LeaseConfig}).
 *
 * <p>A range's replica set has <em>voters</em> ({@link #replicas}, preference order, natural leader
 * first), over which every quorum is counted, and <em>learners</em> ({@link #learners}): non-voting
 * replicas being caught up, which receive the accepts, commits and purges a voter receives but
 * whose replies count toward no quorum (docs/PROTOCOL.md "Membership changes").
 *
 * <p>The {@linkplain #ringVersion() ring version} orders placements: a node's requests carry the
 * version of the replica set they count their quorum over, and a replica refuses requests of a
 * version older than the one at which the range's set last changed for it. Two placements with one
 * version must be equal ({@link PlacementChange}).
 *
 * <p>Immutable.
 */
public final class Placement {
  private final long ringVersion;
  private final long[] endTokens;
  private final List<List<Integer>> replicas;
  private final List<List<Integer>> learners;
  private final Set<Integer> nodes;

  private Placement(
      long ringVersion,
      long[] endTokens,
      List<List<Integer>> replicas,
      List<List<Integer>> learners) {
    this.ringVersion = ringVersion;
    this.endTokens = endTokens;
    this.replicas = replicas;
    this.learners = learners;
    TreeSet<Integer> all = new TreeSet<>();
    replicas.forEach(all::addAll);
    learners.forEach(all::addAll);
    this.nodes = Collections.unmodifiableSortedSet(all);
  }

  /**
   * A placement from ring ranges.
   *
   * @param endTokens strictly increasing inclusive end tokens, one per range
   * @param replicas each range's replica set: distinct node ids, non-empty, natural leader first
   * @throws IllegalArgumentException if the tokens do not increase, the sizes differ or a replica
   *     set is empty or repeats a node
   */
  public static Placement of(List<Long> endTokens, List<List<Integer>> replicas) {
    return of(0, endTokens, replicas, Collections.nCopies(replicas.size(), List.of()));
  }

  /**
   * A placement at ring version {@code ringVersion} with learners.
   *
   * @param ringVersion in {@code [0, InputBounds.MAX_NUMBER]}
   * @param endTokens strictly increasing inclusive end tokens, one per range
   * @param voters each range's voters: distinct node ids, non-empty, natural leader first
   * @param learners each range's learners: distinct node ids, none of them a voter of the range
   * @throws IllegalArgumentException if the version is out of range, the tokens do not increase,
   *     the sizes differ, a voter set is empty, or a node appears twice in a range
   */
  public static Placement of(
      long ringVersion,
      List<Long> endTokens,
      List<List<Integer>> voters,
      List<List<Integer>> learners) {
    if (ringVersion < 0 || ringVersion > InputBounds.MAX_NUMBER) {
      throw new IllegalArgumentException(
          "ring version " + ringVersion + " outside [0, " + InputBounds.MAX_NUMBER + "]");
    }
    if (learners.size() != voters.size()) {
      throw new IllegalArgumentException(
          "need one learner set per range: " + voters.size() + " ranges, " + learners.size());
    }
    List<List<Integer>> learnerSets = new ArrayList<>(learners.size());
    for (int i = 0; i < learners.size(); i++) {
      List<Integer> set = List.copyOf(learners.get(i));
      if (set.stream().distinct().count() != set.size()
          || set.stream().anyMatch(voters.get(i)::contains)
          || set.stream().anyMatch(n -> n < 0)) {
        throw new IllegalArgumentException(
            "range "
                + i
                + "'s learners must be distinct node ids >= 0 and not voters: "
                + set
                + " (voters "
                + voters.get(i)
                + ")");
      }
      learnerSets.add(set);
    }
    Placement votersOnly = votersOnly(ringVersion, endTokens, voters);
    return new Placement(
        ringVersion, votersOnly.endTokens, votersOnly.replicas, List.copyOf(learnerSets));
  }

  private static Placement votersOnly(
      long ringVersion, List<Long> endTokens, List<List<Integer>> replicas) {
    if (endTokens.isEmpty() || endTokens.size() != replicas.size()) {
      throw new IllegalArgumentException(
          "need one replica set per range, and at least one range: "
              + endTokens.size()
              + " end tokens, "
              + replicas.size()
              + " replica sets");
    }
    long[] ends = new long[endTokens.size()];
    List<List<Integer>> sets = new ArrayList<>(replicas.size());
    for (int i = 0; i < ends.length; i++) {
      ends[i] = endTokens.get(i);
      if (i > 0 && ends[i - 1] >= ends[i]) {
        throw new IllegalArgumentException("end tokens must increase: " + endTokens);
      }
      List<Integer> set = List.copyOf(replicas.get(i));
      if (set.isEmpty()
          || set.stream().distinct().count() != set.size()
          || set.stream().anyMatch(n -> n < 0)) {
        throw new IllegalArgumentException(
            "range " + i + "'s replicas must be distinct node ids >= 0, non-empty: " + set);
      }
      sets.add(set);
    }
    List<List<Integer>> none = Collections.nCopies(sets.size(), List.of());
    return new Placement(ringVersion, ends, List.copyOf(sets), none);
  }

  /**
   * This placement at ring version {@code nextVersion} with range {@code range}'s voters and
   * learners replaced (the other ranges unchanged): one step of a membership change.
   */
  public Placement withRange(
      long nextVersion, int range, List<Integer> voters, List<Integer> learners) {
    replicas(range);
    List<List<Integer>> v = new ArrayList<>(replicas);
    List<List<Integer>> l = new ArrayList<>(this.learners);
    v.set(range, voters);
    l.set(range, learners);
    return of(nextVersion, endTokenList(), v, l);
  }

  /** This placement's ranges and sets at ring version {@code nextVersion}. */
  public Placement atVersion(long nextVersion) {
    return of(nextVersion, endTokenList(), replicas, learners);
  }

  private List<Long> endTokenList() {
    List<Long> ends = new ArrayList<>(endTokens.length);
    for (long end : endTokens) {
      ends.add(end);
    }
    return ends;
  }

  /** The ring version this placement belongs to (0 for a cluster that never changed). */
  public long ringVersion() {
    return ringVersion;
  }

  /** One range holding every key, replicated on {@code replicas}. */
  public static Placement single(List<Integer> replicas) {
    return of(List.of(Long.MAX_VALUE), List.of(replicas));
  }

  /**
   * Ranges cut at {@code splitTokens}, all replicated on {@code replicas}: range {@code i} holds
   * {@code [split[i-1], split[i])}, the first from {@link Long#MIN_VALUE}, the last to {@link
   * Long#MAX_VALUE} inclusive.
   */
  public static Placement splitAt(List<Long> splitTokens, List<Integer> replicas) {
    List<Long> ends = new ArrayList<>(splitTokens.size() + 1);
    for (long split : splitTokens) {
      if (split == Long.MIN_VALUE) {
        throw new IllegalArgumentException("a split at Long.MIN_VALUE leaves an empty range");
      }
      ends.add(split - 1);
    }
    ends.add(Long.MAX_VALUE);
    return of(ends, Collections.nCopies(ends.size(), replicas));
  }

  public int rangeCount() {
    return endTokens.length;
  }

  /** The range holding {@code token}: the first end token at or after it, wrapping to 0. */
  public int rangeOf(long token) {
    int i = Arrays.binarySearch(endTokens, token);
    if (i >= 0) {
      return i;
    }
    int insertion = -i - 1;
    return insertion == endTokens.length ? 0 : insertion;
  }

  public int rangeOf(Key key) {
    return rangeOf(key.token());
  }

  /**
   * Range {@code range}'s voters, natural leader first: the replicas every quorum of the range is
   * counted over.
   */
  public List<Integer> replicas(int range) {
    if (range < 0 || range >= endTokens.length) {
      throw new IllegalArgumentException(
          "no range " + range + " (placement has " + endTokens.length + ")");
    }
    return replicas.get(range);
  }

  public List<Integer> replicasOf(Key key) {
    return replicas.get(rangeOf(key));
  }

  /** Range {@code range}'s learners: they store the range's keys but never vote. */
  public List<Integer> learners(int range) {
    replicas(range);
    return learners.get(range);
  }

  public List<Integer> learnersOf(Key key) {
    return learners.get(rangeOf(key));
  }

  /** Whether {@code node} is a voter of range {@code range}. */
  public boolean isVoter(int range, int node) {
    return replicas(range).contains(node);
  }

  /** Range {@code range}'s voters, then its learners: every node that stores its keys. */
  public List<Integer> members(int range) {
    List<Integer> l = learners(range);
    if (l.isEmpty()) {
      return replicas.get(range);
    }
    List<Integer> all = new ArrayList<>(replicas.get(range));
    all.addAll(l);
    return List.copyOf(all);
  }

  /** The inclusive end token of {@code range}. */
  public long endToken(int range) {
    replicas(range);
    return endTokens[range];
  }

  /**
   * The exclusive start token of {@code range}: the previous range's end (for range 0 the last
   * range's end, as it wraps; equal to its own end when there is one range, meaning everything).
   */
  public long startTokenExclusive(int range) {
    replicas(range);
    return endTokens[Math.floorMod(range - 1, endTokens.length)];
  }

  /** Every node that replicates some range, as a voter or a learner, in id order. */
  public Set<Integer> nodes() {
    return nodes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement p
        && ringVersion == p.ringVersion
        && Arrays.equals(endTokens, p.endTokens)
        && replicas.equals(p.replicas)
        && learners.equals(p.learners);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(ringVersion)
        + 31 * (31 * Arrays.hashCode(endTokens) + replicas.hashCode())
        + learners.hashCode();
  }

  @Override
  public String toString() {
    // Version 0 prints as before ring versions existed (the simulator hashes failure texts only,
    // but keep the common case short).
    return "Placement{"
        + (ringVersion == 0 ? "" : "ring version " + ringVersion + ", ")
        + endTokens.length
        + " ranges, nodes "
        + nodes
        + "}";
  }
}
