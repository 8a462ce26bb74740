package io.frsm.api;

import java.util.Arrays;
import java.util.Objects;

/** A value together with the version at which it was chosen. The array is never shared. */
public record Versioned(byte[] value, Version version) {

  public Versioned {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(version, "version");
    value = value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Versioned other
        && version.equals(other.version)
        && Arrays.equals(value, other.value);
  }

  @Override
  public int hashCode() {
    return 31 * version.hashCode() + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "Versioned{version=" + version + ", value=" + value.length + " bytes}";
  }
}
