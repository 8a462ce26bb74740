package io.frsm.testkit.history;

import io.frsm.api.CasMismatchException;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Objects;
import java.util.Optional;

/**
 * How an operation ended, as the client saw it. Which outputs an operation can have:
 *
 * <ul>
 *   <li>get, fence: {@link Found}, {@link Absent}
 *   <li>create: {@link Written}, {@link KeyExists}
 *   <li>cas: {@link Written}, {@link CasMismatch}
 *   <li>delete: {@link Deleted}, {@link CasMismatch}
 *   <li>any: {@link Unknown} (may or may not take effect, at any time after the call), {@link
 *       NotExecuted} (did not and will not take effect)
 * </ul>
 */
public sealed interface Output {
  Absent ABSENT = new Absent();
  Deleted DELETED = new Deleted();
  Unknown UNKNOWN = new Unknown();
  NotExecuted NOT_EXECUTED = new NotExecuted();

  /** get or fence found the key present: its value at the version read (fence: the new one). */
  record Found(VersionedValue current) implements Output {
    public Found {
      Objects.requireNonNull(current, "current");
    }
  }

  /** get or fence found the key absent. */
  record Absent() implements Output {}

  /** create or cas succeeded and produced {@code version}. */
  record Written(Version version) implements Output {
    public Written {
      Objects.requireNonNull(version, "version");
    }
  }

  /** delete succeeded. */
  record Deleted() implements Output {}

  /** create failed: the key is present with {@code current}. */
  record KeyExists(VersionedValue current) implements Output {
    public KeyExists {
      Objects.requireNonNull(current, "current");
    }
  }

  /** cas or delete failed: the key holds {@code current}, or is absent when empty. */
  record CasMismatch(Optional<VersionedValue> current) implements Output {
    public CasMismatch {
      Objects.requireNonNull(current, "current");
    }
  }

  /** The outcome is unknown ({@code OutcomeUnknownException}, a lost reply, a crash). */
  record Unknown() implements Output {}

  /** The operation definitely did not take effect ({@code NotExecutedException}). */
  record NotExecuted() implements Output {}

  /** The output of a get or fence that returned {@code result}. */
  static Output ofRead(Optional<Versioned> result) {
    return result.<Output>map(v -> new Found(VersionedValue.of(v))).orElse(ABSENT);
  }

  /**
   * The output of an operation that failed with {@code failure}. Failures that do not say the
   * operation had no effect are {@link Unknown}: the safe reading for a checker.
   */
  static Output ofFailure(Throwable failure) {
    if (failure instanceof KeyExistsException e) {
      return new KeyExists(VersionedValue.of(e.current()));
    }
    if (failure instanceof CasMismatchException e) {
      return new CasMismatch(e.current().map(VersionedValue::of));
    }
    if (failure instanceof NotExecutedException || failure instanceof InvalidRequestException) {
      return NOT_EXECUTED;
    }
    return UNKNOWN;
  }

  /** Whether an operation of {@code kind} can end this way. */
  default boolean fits(OperationKind kind) {
    if (this instanceof Found || this instanceof Absent) {
      return kind == OperationKind.GET || kind == OperationKind.FENCE;
    }
    if (this instanceof Written) {
      return kind == OperationKind.CREATE || kind == OperationKind.CAS;
    }
    if (this instanceof Deleted) {
      return kind == OperationKind.DELETE;
    }
    if (this instanceof KeyExists) {
      return kind == OperationKind.CREATE;
    }
    if (this instanceof CasMismatch) {
      return kind == OperationKind.CAS || kind == OperationKind.DELETE;
    }
    return true; // Unknown and NotExecuted fit every operation
  }
}
