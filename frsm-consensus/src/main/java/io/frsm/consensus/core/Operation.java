package io.frsm.consensus.core;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import java.util.Objects;

/**
 * A client operation on one key (docs/DESIGN.md "Operations"). Value arrays are owned by the
 * record.
 */
public sealed interface Operation {
  Key key();

  /** Whether the operation may change the key (every kind but {@link Get}). */
  default boolean mutates() {
    return !(this instanceof Get);
  }

  /** The idempotency hint of a create, CAS or delete, or null: none (always null otherwise). */
  default IdempotencyHint hint() {
    return null;
  }

  /**
   * Linearizable read: the newest chosen value, or absent. Served from the leader's local cell
   * while it holds the range's lease (no messages), else by a quorum read; {@code quorum}: always
   * by a quorum read, so its answer does not rest on the lease's clock-drift bound ρ.
   */
  record Get(Key key, boolean quorum) implements Operation {
    public Get {
      Objects.requireNonNull(key);
    }

    /** A read that may be served under the lease. */
    public Get(Key key) {
      this(key, false);
    }
  }

  /**
   * Creates an absent key at a new epoch, timestamp 0. {@code hint}: see {@link IdempotencyHint}
   * (null: none).
   */
  record Create(Key key, byte[] value, IdempotencyHint hint) implements Operation {
    public Create {
      Objects.requireNonNull(key);
      Objects.requireNonNull(value);
    }

    public Create(Key key, byte[] value) {
      this(key, value, null);
    }
  }

  /**
   * Replaces the value iff the newest chosen version is {@code expected} and live. {@code hint}:
   * see {@link IdempotencyHint} (null: none).
   */
  record Cas(Key key, Version expected, byte[] value, IdempotencyHint hint) implements Operation {
    public Cas {
      Objects.requireNonNull(key);
      Objects.requireNonNull(expected);
      Objects.requireNonNull(value);
    }

    public Cas(Key key, Version expected, byte[] value) {
      this(key, expected, value, null);
    }
  }

  /** Phase 1 of delete: a CAS to a delete marker. {@code hint}: as for {@link Cas}. */
  record Delete(Key key, Version expected, IdempotencyHint hint) implements Operation {
    public Delete {
      Objects.requireNonNull(key);
      Objects.requireNonNull(expected);
    }

    public Delete(Key key, Version expected) {
      this(key, expected, null);
    }
  }

  /** A read that always bumps the version (or writes a delete marker at a new epoch). */
  record Fence(Key key) implements Operation {
    public Fence {
      Objects.requireNonNull(key);
    }
  }
}
