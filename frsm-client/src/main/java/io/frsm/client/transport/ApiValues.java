package io.frsm.client.transport;

import com.google.protobuf.ByteString;
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
    return version(present, version.getEpoch(), version.getTimestamp(), where);
  }

  /** A required Version field as read (the generated and the direct readers' one check). */
  static Version version(boolean present, long epoch, long timestamp, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + ": version is missing");
    }
    return new Version(
        instanceField(epoch, "epoch", where), instanceField(timestamp, "timestamp", where));
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
    io.frsm.client.proto.Version version = versioned.getVersion();
    return versioned(
        true,
        versioned.getValue(),
        versioned.hasVersion(),
        version.getEpoch(),
        version.getTimestamp(),
        where);
  }

  /** A required Versioned field as read (the generated and the direct readers' one check). */
  static Versioned versioned(
      boolean present,
      ByteString value,
      boolean versionPresent,
      long epoch,
      long timestamp,
      String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + " is missing");
    }
    Version version = version(versionPresent, epoch, timestamp, where);
    // One copy out of the frame (the bytes field shares the decoder's body array, which the next
    // frame overwrites) into the array the Versioned keeps: toByteArray and then the constructor
    // copied twice.
    return Versioned.copyOf(value.asReadOnlyByteBuffer(), version);
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
