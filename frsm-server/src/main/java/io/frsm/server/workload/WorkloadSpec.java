package io.frsm.server.workload;

import java.time.Duration;

/**
 * The paper's workload (NSDI '20 §4): {@code readFraction} gets, the rest CAS writes done as
 * read-modify-write through the client API, over {@code keyCount} keys drawn from a Zipf
 * distribution ({@code zipfTheta} 0.99; 0 for uniform), with fixed-size values or a mix where 80%
 * are under 200 bytes.
 *
 * @param targetOpsPerSecond 0 for a closed loop ({@code clients} threads, each issuing the next
 *     operation when the last finished); above 0 for an open loop at that total rate, latency
 *     measured from each operation's intended start (no coordinated omission)
 */
public record WorkloadSpec(
    long keyCount,
    double zipfTheta,
    double readFraction,
    int valueSizeBytes,
    boolean valueSizeMix,
    int clients,
    Duration duration,
    double targetOpsPerSecond,
    long seed) {

  public WorkloadSpec {
    if (keyCount < 1 || clients < 1) {
      throw new IllegalArgumentException("keyCount and clients must be >= 1");
    }
    if (keyCount > 10_000_000_000L) {
      throw new IllegalArgumentException(
          "keyCount must be <= 10^10 (keys are named with ten digits), was " + keyCount);
    }
    if (readFraction < 0 || readFraction > 1) {
      throw new IllegalArgumentException("readFraction must be in [0, 1]");
    }
    if (valueSizeBytes < 1 || duration.isNegative() || targetOpsPerSecond < 0) {
      throw new IllegalArgumentException("bad value size, duration or rate");
    }
  }

  /** The paper's workload: 43% reads, 57% CAS, 512-byte values, Zipf 0.99, closed loop. */
  public static WorkloadSpec paper(long keyCount, int clients, Duration duration) {
    return new WorkloadSpec(keyCount, 0.99, 0.43, 512, false, clients, duration, 0, 42);
  }

  public WorkloadSpec uniform() {
    return new WorkloadSpec(
        keyCount,
        0,
        readFraction,
        valueSizeBytes,
        valueSizeMix,
        clients,
        duration,
        targetOpsPerSecond,
        seed);
  }

  public WorkloadSpec withTargetRate(double opsPerSecond) {
    return new WorkloadSpec(
        keyCount,
        zipfTheta,
        readFraction,
        valueSizeBytes,
        valueSizeMix,
        clients,
        duration,
        opsPerSecond,
        seed);
  }
}
