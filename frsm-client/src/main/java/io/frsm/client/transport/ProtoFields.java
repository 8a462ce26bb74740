package io.frsm.client.transport;

import com.google.protobuf.CodedOutputStream;
import io.frsm.api.Version;
import java.io.IOException;

/**
 * Sizes and writes proto3 fields as the generated classes do: scalars only when not 0 (bytes and
 * strings when not empty, bools when true), message fields whenever the caller sets them. Each size
 * method mirrors its write method; a length prefix needs the size before the content.
 */
final class ProtoFields {
  private static final int LENGTH_DELIMITED =
      com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED;

  private ProtoFields() {}

  /** A length-delimited field's tag, length prefix and {@code contentSize} bytes. */
  static int messageField(int field, int contentSize) {
    return CodedOutputStream.computeTagSize(field)
        + CodedOutputStream.computeUInt32SizeNoTag(contentSize)
        + contentSize;
  }

  /** The tag and length prefix of a length-delimited field; its content follows. */
  static void messageHeader(CodedOutputStream out, int field, int contentSize) throws IOException {
    out.writeTag(field, LENGTH_DELIMITED);
    out.writeUInt32NoTag(contentSize);
  }

  /** client.proto's {@code Version} as a message field (always written: it is required). */
  static int versionField(int field, Version version) {
    return messageField(field, versionSize(version));
  }

  static void versionField(CodedOutputStream out, int field, Version version) throws IOException {
    messageHeader(out, field, versionSize(version));
    uint64(out, 1, version.epoch());
    uint64(out, 2, version.timestamp());
  }

  private static int versionSize(Version version) {
    return uint64(1, version.epoch()) + uint64(2, version.timestamp());
  }

  static int uint64(int field, long value) {
    return value == 0 ? 0 : CodedOutputStream.computeUInt64Size(field, value);
  }

  static void uint64(CodedOutputStream out, int field, long value) throws IOException {
    if (value != 0) {
      out.writeUInt64(field, value);
    }
  }

  static int uint32(int field, int value) {
    return value == 0 ? 0 : CodedOutputStream.computeUInt32Size(field, value);
  }

  static void uint32(CodedOutputStream out, int field, int value) throws IOException {
    if (value != 0) {
      out.writeUInt32(field, value);
    }
  }

  static int bool(int field, boolean value) {
    return value ? CodedOutputStream.computeBoolSize(field, true) : 0;
  }

  static void bool(CodedOutputStream out, int field, boolean value) throws IOException {
    if (value) {
      out.writeBool(field, true);
    }
  }

  static int bytes(int field, byte[] value) {
    return value.length == 0 ? 0 : CodedOutputStream.computeByteArraySize(field, value);
  }

  static void bytes(CodedOutputStream out, int field, byte[] value) throws IOException {
    if (value.length != 0) {
      out.writeByteArray(field, value);
    }
  }

  /** A string as protobuf sizes it (an unpaired surrogate counts as protobuf writes it). */
  static int string(int field, String value) {
    return value.isEmpty() ? 0 : CodedOutputStream.computeStringSize(field, value);
  }

  static void string(CodedOutputStream out, int field, String value) throws IOException {
    if (!value.isEmpty()) {
      out.writeString(field, value);
    }
  }
}
