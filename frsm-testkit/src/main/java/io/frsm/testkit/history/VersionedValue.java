package io.frsm.testkit.history;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Objects;

/** A value with the version at which it was chosen, as an operation observed it. */
public record VersionedValue(Bytes value, Version version) {
  public VersionedValue {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(version, "version");
  }

  public static VersionedValue of(Versioned versioned) {
    return new VersionedValue(Bytes.of(versioned.value()), versioned.version());
  }

  @Override
  public String toString() {
    return value + " at " + version;
  }
}
