package io.frsm.cell;

/**
 * A Paxos ballot {@code (round, nodeId, boot)}, ordered lexicographically.
 *
 * <p>{@code round} is wall-clock microseconds (or one above the highest round seen for the key),
 * {@code nodeId} breaks ties between proposers, and {@code boot} counts the proposer's starts, so
 * no ballot of a crashed incarnation can be reused. {@link #NONE} is ⊥: below every real ballot.
 */
public record Ballot(long round, int nodeId, int boot) implements Comparable<Ballot> {

  /** ⊥: no ballot. Real ballots have {@code round >= 1}. */
  public static final Ballot NONE = new Ballot(0, 0, 0);

  public Ballot {
    if (round < 0 || nodeId < 0 || boot < 0) {
      throw new IllegalArgumentException(
          "ballot fields must be >= 0: (" + round + ", " + nodeId + ", " + boot + ")");
    }
    if (round == 0 && (nodeId != 0 || boot != 0)) {
      throw new IllegalArgumentException("round 0 is reserved for Ballot.NONE");
    }
  }

  public boolean isNone() {
    return round == 0;
  }

  @Override
  public int compareTo(Ballot o) {
    int c = Long.compare(round, o.round);
    if (c != 0) {
      return c;
    }
    c = Integer.compare(nodeId, o.nodeId);
    return c != 0 ? c : Integer.compare(boot, o.boot);
  }

  public static Ballot max(Ballot a, Ballot b) {
    return a.compareTo(b) >= 0 ? a : b;
  }

  @Override
  public String toString() {
    return isNone() ? "⊥" : "(" + round + "," + nodeId + "," + boot + ")";
  }
}
