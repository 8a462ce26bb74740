package io.frsm.client.transport;

import com.google.protobuf.UnsafeByteOperations;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Optional;

/** Converts frsm-api values ({@link Version}, {@link Versioned}) to protobuf and back. */
public final class ApiValues {
  private ApiValues() {}

  static io.frsm.client.proto.Version version(Version version) {
    return io.frsm.client.proto.Version.newBuilder()
        .setEpoch(version.epoch())
        .setTimestamp(version.timestamp())
        .build();
  }

  public static Version version(boolean present, io.frsm.client.proto.Version version, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + ": version is missing");
    }
    return new Version(
        instanceField(version.getEpoch(), "epoch", where),
        instanceField(version.getTimestamp(), "timestamp", where));
  }

  static io.frsm.client.proto.Versioned versioned(Versioned versioned) {
    return io.frsm.client.proto.Versioned.newBuilder()
        // value() is a fresh copy that nothing else holds or writes: wrapped, not copied again.
        // (A read-only view of the Versioned's own bytes would not save it: protobuf copies a
        // read-only heap buffer when it wraps one.)
        .setValue(UnsafeByteOperations.unsafeWrap(versioned.value()))
        .setVersion(version(versioned.version()))
        .build();
  }

  public static Versioned versioned(
      boolean present, io.frsm.client.proto.Versioned versioned, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + " is missing");
    }
    Version version = version(versioned.hasVersion(), versioned.getVersion(), where);
    // One copy out of the frame (the bytes field shares the decoder's body array, which the next
    // frame overwrites) into the array the Versioned keeps: toByteArray and then the constructor
    // copied twice.
    return Versioned.copyOf(versioned.getValue().asReadOnlyByteBuffer(), version);
  }

  /**
   * A number the protocol computes with (epoch, timestamp, τ): within {@code [0,
   * WireFormat.MAX_NUMBER]} (docs/formats/wire.md "Validated ranges").
   */
  public static long instanceField(long value, String field, String where)
      throws WireDecodeException {
    // A uint64 above 2^63-1 arrives as a negative Java long: unsigned, it is above the bound too.
    if (value < 0 || value > WireFormat.MAX_NUMBER) {
      throw new WireDecodeException(
          where
              + ": "
              + field
              + " "
              + Long.toUnsignedString(value)
              + " is above the maximum "
              + WireFormat.MAX_NUMBER);
    }
    return value;
  }

  /** An optional Versioned field: absent means the key is absent. */
  public static Optional<Versioned> versionedOrAbsent(
      boolean present, io.frsm.client.proto.Versioned versioned, String where)
      throws WireDecodeException {
    return present ? Optional.of(versioned(true, versioned, where)) : Optional.empty();
  }
}
