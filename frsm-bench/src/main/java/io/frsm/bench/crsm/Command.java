package io.frsm.bench.crsm;

import io.frsm.api.Version;
import java.util.Objects;

/**
 * One client operation as it travels through a shard's log, with frsm's API semantics
 * (docs/DESIGN.md "Operations"). Keys and values are owned by the command: callers hand over arrays
 * they never modify again.
 */
public sealed interface Command {

  byte[] key();

  /** Reads the key's newest value. Goes through the log only in {@link ReadMode#LOG}. */
  record Get(byte[] key) implements Command {
    public Get {
      Objects.requireNonNull(key, "key");
    }
  }

  /** Creates an absent key at a new epoch, timestamp 0. */
  record Create(byte[] key, byte[] value) implements Command {
    public Create {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(value, "value");
    }
  }

  /** Replaces the value iff the key is live at {@code expected}. */
  record Cas(byte[] key, Version expected, byte[] value) implements Command {
    public Cas {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
      Objects.requireNonNull(value, "value");
    }
  }

  /** Replaces the value with a delete marker iff the key is live at {@code expected}. */
  record Delete(byte[] key, Version expected) implements Command {
    public Delete {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(expected, "expected");
    }
  }

  /** A read that bumps the version, so no CAS expecting an older version can succeed. */
  record Fence(byte[] key) implements Command {
    public Fence {
      Objects.requireNonNull(key, "key");
    }
  }
}
