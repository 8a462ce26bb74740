package io.frsm.api;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;

/** A value together with the version at which it was chosen. The array is never shared. */
public record Versioned(byte[] value, Version version) {

  /**
   * The array {@link #copyOf} is handing to the constructor on this thread, which keeps it instead
   * of copying it again; null otherwise. Only ever a fresh array that {@link #copyOf} made and that
   * nothing else can reach, so no caller's array is ever kept.
   */
  private static final ThreadLocal<byte[]> HANDED_OVER = new ThreadLocal<>();

  public Versioned {
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(version, "version");
    value = value == HANDED_OVER.get() ? value : value.clone();
  }

  /**
   * A versioned value holding a copy of {@code value}'s remaining bytes (the buffer's position is
   * not moved): one copy, where copying the bytes out into an array for the constructor makes two
   * (the constructor copies its argument).
   */
  public static Versioned copyOf(ByteBuffer value, Version version) {
    byte[] copy = new byte[value.remaining()];
    value.get(value.position(), copy);
    HANDED_OVER.set(copy);
    try {
      return new Versioned(copy, version);
    } finally {
      HANDED_OVER.set(null);
    }
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
