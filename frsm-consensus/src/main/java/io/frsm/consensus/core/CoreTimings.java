package io.frsm.consensus.core;

/**
 * The durations of a {@link CoreConfig} in the units the core compares against its clocks, turned
 * into longs once when the core is built so that hot paths (every tick of every run) convert
 * nothing: the bounded delay in wall-clock microseconds (the unit of {@link Now#wallMicros}, a
 * finer part dropped), the rest in monotonic nanoseconds.
 */
record CoreTimings(
    long boundedDelayMicros, long hedgeNanos, long roundTimeoutNanos, long backoffMaxNanos) {

  static CoreTimings of(CoreConfig config) {
    return new CoreTimings(
        config.boundedDelay().toNanos() / 1_000,
        config.hedgeDelay().toNanos(),
        config.roundTimeout().toNanos(),
        config.backoffMax().toNanos());
  }
}
