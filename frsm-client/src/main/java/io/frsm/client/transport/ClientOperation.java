package io.frsm.client.transport;

import io.frsm.api.Version;
import java.util.Objects;

/**
 * An operation on one key as the client protocol carries it (docs/DESIGN.md "Operations"), in the
 * API's value types: what a client sends and what a node decodes before it maps the operation to
 * its consensus core. Value arrays are owned by the record.
 */
public sealed interface ClientOperation {
  KeyBytes key();

  /** Whether the operation may change the key (every kind but {@link Get}). */
  default boolean mutates() {
    return !(this instanceof Get);
  }

  /** The idempotency hint of a create, CAS or delete, or null: none (always null otherwise). */
  default Hint hint() {
    return null;
  }

  /**
   * An idempotency hint (docs/PROTOCOL.md "Idempotent resends"): the mutation's 16-byte token,
   * chosen and stored with its value, and whether this request resends one whose outcome the client
   * did not learn. The array is owned by the record.
   */
  public record Hint(byte[] token, boolean resend) {
    public static final int TOKEN_BYTES = 16;

    public Hint {
      Objects.requireNonNull(token, "token");
      if (token.length != TOKEN_BYTES) {
        throw new IllegalArgumentException(
            "an idempotency token has " + TOKEN_BYTES + " bytes, not " + token.length);
      }
    }

    /** The same token, marked as a resend. */
    public Hint asResend() {
      return resend ? this : new Hint(token, true);
    }
  }

  /**
   * Linearizable read: the newest chosen value, or absent. {@code quorum}: always by a quorum read,
   * never from the leader's local cell under its lease.
   */
  public record Get(KeyBytes key, boolean quorum) implements ClientOperation {
    public Get {
      Objects.requireNonNull(key, "key");
    }

    /** A read the leader may serve under its lease. */
    public Get(KeyBytes key) {
      this(key, false);
    }
  }

  /** Creates an absent key at a new epoch, timestamp 0. {@code hint}: null for none. */
  public record Create(KeyBytes key, byte[] value, Hint hint) implements ClientOperation {
    public Create {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }

    public Create(KeyBytes key, byte[] value) {
      this(key, value, null);
    }
  }

  /**
   * Replaces the value iff the newest chosen version is {@code expected} and live. {@code hint}:
   * null for none.
   */
  public record Cas(KeyBytes key, Version expected, byte[] value, Hint hint)
      implements ClientOperation {
    public Cas {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
      Objects.requireNonNull(value, "value");
    }

    public Cas(KeyBytes key, Version expected, byte[] value) {
      this(key, expected, value, null);
    }
  }

  /** Phase 1 of delete: a CAS to a delete marker. {@code hint}: null for none. */
  public record Delete(KeyBytes key, Version expected, Hint hint) implements ClientOperation {
    public Delete {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
    }

    public Delete(KeyBytes key, Version expected) {
      this(key, expected, null);
    }
  }

  /** A read that always moves the version on (or writes a delete marker at a new epoch). */
  public record Fence(KeyBytes key) implements ClientOperation {
    public Fence {
      Objects.requireNonNull(key, "key");
    }
  }
}
