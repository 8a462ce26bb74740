package io.frsm.api;

/**
 * The version of a key's value: the Paxos instance {@code (epoch, timestamp)} at which it was
 * chosen.
 *
 * <p>{@code epoch} is the generation of the key (it changes when the key is created again after a
 * delete, or fenced while absent); {@code timestamp} counts the mutations within the epoch.
 * Versions are totally ordered, epoch first.
 */
public record Version(long epoch, long timestamp) implements Comparable<Version> {

  public Version {
    if (epoch < 0) {
      throw new IllegalArgumentException("epoch must be >= 0, was " + epoch);
    }
    if (timestamp < 0) {
      throw new IllegalArgumentException("timestamp must be >= 0, was " + timestamp);
    }
  }

  /** The version a successful CAS from this version produces. */
  public Version next() {
    return new Version(epoch, Math.addExact(timestamp, 1));
  }

  @Override
  public int compareTo(Version other) {
    int byEpoch = Long.compare(epoch, other.epoch);
    return byEpoch != 0 ? byEpoch : Long.compare(timestamp, other.timestamp);
  }

  @Override
  public String toString() {
    return "(" + epoch + ", " + timestamp + ")";
  }
}
