package io.frsm.transport;

import com.google.protobuf.ByteString;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Optional;

/** Converts frsm-api values ({@link Version}, {@link Versioned}) to protobuf and back. */
final class ApiValues {
  private ApiValues() {}

  static io.frsm.transport.proto.Version version(Version version) {
    return io.frsm.transport.proto.Version.newBuilder()
        .setEpoch(version.epoch())
        .setTimestamp(version.timestamp())
        .build();
  }

  static Version version(boolean present, io.frsm.transport.proto.Version version, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + ": version is missing");
    }
    return new Version(
        WireValues.instanceField(version.getEpoch(), "epoch", where),
        WireValues.instanceField(version.getTimestamp(), "timestamp", where));
  }

  static io.frsm.transport.proto.Versioned versioned(Versioned versioned) {
    return io.frsm.transport.proto.Versioned.newBuilder()
        .setValue(ByteString.copyFrom(versioned.value()))
        .setVersion(version(versioned.version()))
        .build();
  }

  static Versioned versioned(
      boolean present, io.frsm.transport.proto.Versioned versioned, String where)
      throws WireDecodeException {
    if (!present) {
      throw new WireDecodeException(where + " is missing");
    }
    return new Versioned(
        versioned.getValue().toByteArray(),
        version(versioned.hasVersion(), versioned.getVersion(), where));
  }

  /** An optional Versioned field: absent means the key is absent. */
  static Optional<Versioned> versionedOrAbsent(
      boolean present, io.frsm.transport.proto.Versioned versioned, String where)
      throws WireDecodeException {
    return present ? Optional.of(versioned(true, versioned, where)) : Optional.empty();
  }
}
