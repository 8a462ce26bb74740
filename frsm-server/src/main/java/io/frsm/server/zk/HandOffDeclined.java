package io.frsm.server.zk;

/**
 * How a core's hand-off answer says it declined ({@code Effect.HandOffDeclined}): the holder wrote
 * more keys in the term than a drain takes, so it did not stop taking the range's operations and
 * the agent releases plainly at once (docs/PROTOCOL.md "Hand-off instead of a scan", "Declining").
 * Completes the future {@link RangeLeadership.Sink#handOff} returned; carries no stack trace (it is
 * an answer, not a failure).
 */
public final class HandOffDeclined extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int writtenKeys;

  public HandOffDeclined(int range, long term, int writtenKeys) {
    super(
        "range "
            + range
            + " term "
            + term
            + ": "
            + writtenKeys
            + " keys written, too many to drain",
        null,
        false,
        false);
    this.writtenKeys = writtenKeys;
  }

  /** Keys the holder wrote in the term (the core's limit + 1 if it stopped counting). */
  public int writtenKeys() {
    return writtenKeys;
  }
}
