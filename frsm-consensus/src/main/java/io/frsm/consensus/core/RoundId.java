package io.frsm.consensus.core;

/**
 * Names one round (read, prepare or accept) of one coordinator incarnation, so replies are matched
 * to the round that asked. The boot keeps a restarted node from taking a reply meant for its
 * previous incarnation.
 */
public record RoundId(int nodeId, int boot, long sequence) {
  @Override
  public String toString() {
    return nodeId + "/" + boot + "#" + sequence;
  }
}
