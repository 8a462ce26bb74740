package io.frsm.consensus.core;

import io.frsm.cell.Ballot;

/**
 * What a range's term persist leaves at each replica that takes it (docs/PROTOCOL.md "A killed
 * holder: covering its term"): term {@code term} was held by incarnation {@code (holder, boot)},
 * whose ballots in that term all have a round of at least {@code floorRound}. A successor learns
 * its predecessor's record from its own persist quorum and so can tell the values of that term
 * apart: exactly those whose ballot {@link #covers} (or a superset, never a subset).
 */
public record TermRecord(long term, int holder, int boot, long floorRound) {
  public TermRecord {
    if (term < 1 || holder < 0 || boot < 0 || floorRound < 1) {
      throw new IllegalArgumentException(
          "term record (" + term + ", " + holder + ", " + boot + ", " + floorRound + ")");
    }
  }

  /**
   * Whether {@code ballot} may be one of this term's: the holder's incarnation, at the floor or
   * above.
   */
  public boolean covers(Ballot ballot) {
    return ballot.nodeId() == holder && ballot.boot() == boot && ballot.round() >= floorRound;
  }
}
