package io.frsm.consensus.core;

import io.frsm.cell.IdempotencyToken;
import java.util.Objects;

/**
 * A mutation's idempotency hint (docs/PROTOCOL.md "Idempotent resends"): the token proposed with
 * its value, and whether this request is a resend of one whose outcome the client did not learn.
 *
 * <p>The token lets the leader answer a resend whose value was already chosen ("written at v",
 * without a round). {@code resend} changes one answer: when the key moved past the instance the
 * mutation would have written and the newest value is not its own, a first attempt gets the usual
 * definite mismatch, but a resend gets {@link Outcome.Unknown}, because its earlier attempt may
 * have been chosen and then overwritten — "not applied" could be false.
 */
public record IdempotencyHint(IdempotencyToken token, boolean resend) {
  public IdempotencyHint {
    Objects.requireNonNull(token, "token");
  }
}
