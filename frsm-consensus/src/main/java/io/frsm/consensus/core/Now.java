package io.frsm.consensus.core;

/**
 * The time a node sees when an input arrives. The core never reads a clock: the driver stamps each
 * input.
 *
 * @param wallMicros the node's wall clock in microseconds: the source of fresh ballot rounds and
 *     create epochs, and what the bounded delay {@code τ + T} is checked against. May jump or
 *     differ between nodes within the skew bound ε.
 * @param monoNanos the node's monotonic clock in nanoseconds: round timeouts, hedging and back-off.
 *     Never decreases within one incarnation.
 */
public record Now(long wallMicros, long monoNanos) {}
