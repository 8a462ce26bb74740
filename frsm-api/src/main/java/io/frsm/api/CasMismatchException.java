package io.frsm.api;

import java.util.Optional;

/**
 * A CAS or delete expected a version that is not the key's newest chosen version. Definite: the
 * mutation did not and will not take effect. Carries the current value, or empty if the key is
 * absent (never created, or deleted).
 */
public final class CasMismatchException extends FrsmException {
  private final Version expected;
  private final Versioned current;

  public CasMismatchException(Version expected, Optional<Versioned> current) {
    super(
        "expected version "
            + expected
            + " but the key "
            + current.map(v -> "is at version " + v.version()).orElse("is absent")
            + "; re-read and retry with the current version");
    this.expected = expected;
    this.current = current.orElse(null);
  }

  public Version expected() {
    return expected;
  }

  /** The key's current chosen value, or empty if it is absent. */
  public Optional<Versioned> current() {
    return Optional.ofNullable(current);
  }
}
