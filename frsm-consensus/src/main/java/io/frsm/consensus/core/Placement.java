package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Which nodes replicate which keys: the token ring cut into ranges, each with its replica set
 * (preference order, natural leader first). The same cut as the server's consistent-hashing ring:
 * range {@code i} holds the tokens in {@code (end[i-1], end[i]]}; range 0 also wraps past {@link
 * Long#MAX_VALUE}, so it holds {@code (end[last], MAX] ∪ [MIN, end[0]]}. Ranges are also the unit
 * of leadership: each has its own term and lease ({@link LeaseConfig}).
 *
 * <p>Immutable. Every node of a cluster must be built with the same placement: quorums are counted
 * over the range's replica set, so two nodes disagreeing on it could each count a different
 * majority.
 */
public final class Placement {
  private final long[] endTokens;
  private final List<List<Integer>> replicas;
  private final Set<Integer> nodes;

  private Placement(long[] endTokens, List<List<Integer>> replicas) {
    this.endTokens = endTokens;
    this.replicas = replicas;
    TreeSet<Integer> all = new TreeSet<>();
    replicas.forEach(all::addAll);
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
      if (set.isEmpty() || set.stream().distinct().count() != set.size()) {
        throw new IllegalArgumentException(
            "range " + i + "'s replicas must be distinct and non-empty: " + set);
      }
      sets.add(set);
    }
    return new Placement(ends, List.copyOf(sets));
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
    return of(ends, java.util.Collections.nCopies(ends.size(), replicas));
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

  /** Range {@code range}'s replica set, natural leader first. */
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

  /** Every node that replicates some range, in id order. */
  public Set<Integer> nodes() {
    return nodes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Placement p
        && Arrays.equals(endTokens, p.endTokens)
        && replicas.equals(p.replicas);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(endTokens) + replicas.hashCode();
  }

  @Override
  public String toString() {
    return "Placement{" + endTokens.length + " ranges, nodes " + nodes + "}";
  }
}
