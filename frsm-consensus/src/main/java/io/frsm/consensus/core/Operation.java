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

  /** Creates an absent key at a new epoch, timestamp 0. */
  record Create(Key key, byte[] value) implements Operation {
    public Create {
      Objects.requireNonNull(key);
      Objects.requireNonNull(value);
    }
  }

  /** Replaces the value iff the newest chosen version is {@code expected} and live. */
  record Cas(Key key, Version expected, byte[] value) implements Operation {
    public Cas {
      Objects.requireNonNull(key);
      Objects.requireNonNull(expected);
      Objects.requireNonNull(value);
    }
  }

  /** Phase 1 of delete: a CAS to a delete marker. */
  record Delete(Key key, Version expected) implements Operation {
    public Delete {
      Objects.requireNonNull(key);
      Objects.requireNonNull(expected);
    }
  }

  /** A read that always bumps the version (or writes a delete marker at a new epoch). */
  record Fence(Key key) implements Operation {
    public Fence {
      Objects.requireNonNull(key);
    }
  }
}
