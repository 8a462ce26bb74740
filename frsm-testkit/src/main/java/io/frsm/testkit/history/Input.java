package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.util.Objects;
import java.util.Optional;

/**
 * The arguments of an operation besides its key: the expected version (cas, delete) and the new
 * value (create, cas). Which ones an operation needs is checked by {@link Operation}.
 */
public record Input(Optional<Version> expected, Optional<Bytes> value) {
  private static final Input NONE = new Input(Optional.empty(), Optional.empty());

  public Input {
    Objects.requireNonNull(expected, "expected");
    Objects.requireNonNull(value, "value");
  }

  /** The input of get and fence. */
  public static Input none() {
    return NONE;
  }

  /** The input of create. */
  public static Input create(Bytes value) {
    return new Input(Optional.empty(), Optional.of(value));
  }

  /** The input of cas. */
  public static Input cas(Version expected, Bytes value) {
    return new Input(Optional.of(expected), Optional.of(value));
  }

  /** The input of delete. */
  public static Input delete(Version expected) {
    return new Input(Optional.of(expected), Optional.empty());
  }

  /** The input {@code kind} needs, checked. */
  void checkFits(OperationKind kind) {
    if (expected.isPresent() != kind.takesExpectedVersion()) {
      throw new IllegalArgumentException(
          kind.jsonName()
              + (kind.takesExpectedVersion() ? " needs" : " takes no")
              + " expected version");
    }
    if (value.isPresent() != kind.takesValue()) {
      throw new IllegalArgumentException(
          kind.jsonName() + (kind.takesValue() ? " needs" : " takes no") + " value");
    }
  }
}
