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

  /** Creates an absent key at a new epoch, timestamp 0. */
  public record Create(KeyBytes key, byte[] value) implements ClientOperation {
    public Create {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }

  /** Replaces the value iff the newest chosen version is {@code expected} and live. */
  public record Cas(KeyBytes key, Version expected, byte[] value) implements ClientOperation {
    public Cas {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
      Objects.requireNonNull(value, "value");
    }
  }

  /** Phase 1 of delete: a CAS to a delete marker. */
  public record Delete(KeyBytes key, Version expected) implements ClientOperation {
    public Delete {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
    }
  }

  /** A read that always moves the version on (or writes a delete marker at a new epoch). */
  public record Fence(KeyBytes key) implements ClientOperation {
    public Fence {
      Objects.requireNonNull(key, "key");
    }
  }
}
