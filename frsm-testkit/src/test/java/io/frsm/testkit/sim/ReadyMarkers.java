package io.frsm.testkit.sim;

import java.util.Arrays;

/**
 * The ready markers as the coordination service holds them ({@link CoordinationService}): per node,
 * the ranges whose quorum it says it cannot reach; the service grants such a range to no node whose
 * marker names it. A session's writes apply in order, so an older marker never replaces a newer
 * one; a new process registers a fresh marker.
 */
final class ReadyMarkers {
  private final int ranges;

  /** Per node and range: the node's ready marker says it cannot reach the range's quorum. */
  private final boolean[][] markedUnreachable;

  /** Per node: the newest marker the service applied, and the incarnation that wrote it. */
  private final long[] markerApplied;

  private final int[] markerIncarnation;

  ReadyMarkers(int capacity, int ranges) {
    this.ranges = ranges;
    this.markedUnreachable = new boolean[capacity][ranges];
    this.markerApplied = new long[capacity];
    this.markerIncarnation = new int[capacity];
  }

  /** A request of a new process ({@code incarnation}) of node {@code node} reached the service. */
  void newProcess(int node, int incarnation) {
    if (markerIncarnation[node] < incarnation) {
      markedUnreachable[node] = new boolean[ranges]; // a new process registers a fresh marker
    }
  }

  /** Marker {@code seq} of {@code incarnation} of node {@code node} reached the service. */
  void apply(int node, int incarnation, long seq, boolean[] marker) {
    if (incarnation > markerIncarnation[node]
        || (incarnation == markerIncarnation[node] && seq > markerApplied[node])) {
      markerIncarnation[node] = incarnation;
      markerApplied[node] = seq;
      markedUnreachable[node] = marker;
    }
  }

  /** Whether node {@code node}'s marker says it cannot reach {@code range}'s quorum. */
  boolean unreachable(int node, int range) {
    return markedUnreachable[node][range];
  }

  String describe(int node) {
    return Arrays.toString(markedUnreachable[node]);
  }
}
