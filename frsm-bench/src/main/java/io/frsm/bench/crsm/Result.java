package io.frsm.bench.crsm;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Objects;
import java.util.Optional;

/** What a shard answers to one client command. */
public sealed interface Result {

  /** A get or fence: the value (at its new version for a fence), or empty if absent. */
  record Value(Optional<Versioned> value) implements Result {
    public Value {
      Objects.requireNonNull(value);
    }
  }

  /** A create or CAS took effect at {@code version}. */
  record Written(Version version) implements Result {
    public Written {
      Objects.requireNonNull(version);
    }
  }

  /** A delete took effect. */
  record Deleted() implements Result {}

  /** A CAS or delete found another version (or an absent key): definite, nothing changed. */
  record Mismatch(Version expected, Optional<Versioned> current) implements Result {
    public Mismatch {
      Objects.requireNonNull(expected);
      Objects.requireNonNull(current);
    }
  }

  /** A create found the key live: definite, nothing changed. */
  record Exists(Versioned current) implements Result {
    public Exists {
      Objects.requireNonNull(current);
    }
  }

  /** This replica does not lead the shard and never proposed the command: safe to retry. */
  record NotLeader() implements Result {}

  /**
   * The replica lost leadership after proposing the command: a later leader may still execute it.
   */
  record LeadershipLost() implements Result {}
}
