package io.frsm.client.transport;

import com.google.protobuf.CodedOutputStream;
import io.frsm.api.Version;
import java.io.IOException;

/**
 * Sizes and writes proto3 fields as the generated classes do: scalars only when not 0 (bytes and
 * strings when not empty, bools when true), message fields whenever the caller sets them. Each size
 * method mirrors its write method; a length prefix needs the size before the content.
 *
 * <p>Internal: wire helpers shared with the node's peer codec (frsm-transport's direct peer
 * writer); not part of the client API.
 */
public final class ProtoFields {
  private static final int LENGTH_DELIMITED =
      com.google.protobuf.WireFormat.WIRETYPE_LENGTH_DELIMITED;

  private ProtoFields() {}

  /**
   * A length-delimited field's tag, length prefix and {@code contentSize} bytes.
   *
   * @param field the field number
   * @param contentSize the size of the field's content
   * @return the field's size
   */
  public static int messageField(int field, int contentSize) {
    return CodedOutputStream.computeTagSize(field)
        + CodedOutputStream.computeUInt32SizeNoTag(contentSize)
        + contentSize;
  }

  /**
   * The tag and length prefix of a length-delimited field; its content follows.
   *
   * @param out where to write
   * @param field the field number
   * @param contentSize the size of the content the caller writes next
   * @throws IOException if {@code out} cannot be written
   */
  public static void messageHeader(CodedOutputStream out, int field, int contentSize)
      throws IOException {
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

  /**
   * The size of a uint64 field: 0 when {@code value} is 0.
   *
   * @param field the field number
   * @param value the value
   * @return the field's size
   */
  public static int uint64(int field, long value) {
    return value == 0 ? 0 : CodedOutputStream.computeUInt64Size(field, value);
  }

  /**
   * Writes a uint64 field unless {@code value} is 0.
   *
   * @param out where to write
   * @param field the field number
   * @param value the value
   * @throws IOException if {@code out} cannot be written
   */
  public static void uint64(CodedOutputStream out, int field, long value) throws IOException {
    if (value != 0) {
      out.writeUInt64(field, value);
    }
  }

  /**
   * The size of a uint32 field: 0 when {@code value} is 0.
   *
   * @param field the field number
   * @param value the value (unsigned)
   * @return the field's size
   */
  public static int uint32(int field, int value) {
    return value == 0 ? 0 : CodedOutputStream.computeUInt32Size(field, value);
  }

  /**
   * Writes a uint32 field unless {@code value} is 0.
   *
   * @param out where to write
   * @param field the field number
   * @param value the value (unsigned)
   * @throws IOException if {@code out} cannot be written
   */
  public static void uint32(CodedOutputStream out, int field, int value) throws IOException {
    if (value != 0) {
      out.writeUInt32(field, value);
    }
  }

  /**
   * The size of an int64 field: 0 when {@code value} is 0.
   *
   * @param field the field number
   * @param value the value
   * @return the field's size
   */
  public static int int64(int field, long value) {
    return value == 0 ? 0 : CodedOutputStream.computeInt64Size(field, value);
  }

  /**
   * Writes an int64 field unless {@code value} is 0.
   *
   * @param out where to write
   * @param field the field number
   * @param value the value
   * @throws IOException if {@code out} cannot be written
   */
  public static void int64(CodedOutputStream out, int field, long value) throws IOException {
    if (value != 0) {
      out.writeInt64(field, value);
    }
  }

  /**
   * The size of a sint64 field: 0 when {@code value} is 0.
   *
   * @param field the field number
   * @param value the value
   * @return the field's size
   */
  public static int sint64(int field, long value) {
    return value == 0 ? 0 : CodedOutputStream.computeSInt64Size(field, value);
  }

  /**
   * Writes a sint64 field unless {@code value} is 0.
   *
   * @param out where to write
   * @param field the field number
   * @param value the value
   * @throws IOException if {@code out} cannot be written
   */
  public static void sint64(CodedOutputStream out, int field, long value) throws IOException {
    if (value != 0) {
      out.writeSInt64(field, value);
    }
  }

  /**
   * The size of a bool field: 0 when {@code value} is false.
   *
   * @param field the field number
   * @param value the value
   * @return the field's size
   */
  public static int bool(int field, boolean value) {
    return value ? CodedOutputStream.computeBoolSize(field, true) : 0;
  }

  /**
   * Writes a bool field when {@code value} is true.
   *
   * @param out where to write
   * @param field the field number
   * @param value the value
   * @throws IOException if {@code out} cannot be written
   */
  public static void bool(CodedOutputStream out, int field, boolean value) throws IOException {
    if (value) {
      out.writeBool(field, true);
    }
  }

  /**
   * The size of a bytes field: 0 when {@code value} is empty.
   *
   * @param field the field number
   * @param value the bytes
   * @return the field's size
   */
  public static int bytes(int field, byte[] value) {
    return value.length == 0 ? 0 : CodedOutputStream.computeByteArraySize(field, value);
  }

  /**
   * Writes a bytes field unless {@code value} is empty.
   *
   * @param out where to write
   * @param field the field number
   * @param value the bytes (only read)
   * @throws IOException if {@code out} cannot be written
   */
  public static void bytes(CodedOutputStream out, int field, byte[] value) throws IOException {
    if (value.length != 0) {
      out.writeByteArray(field, value);
    }
  }

  /**
   * A string field's size as protobuf sizes it (an unpaired surrogate counts as protobuf writes
   * it): 0 when {@code value} is empty.
   *
   * @param field the field number
   * @param value the string
   * @return the field's size
   */
  public static int string(int field, String value) {
    return value.isEmpty() ? 0 : CodedOutputStream.computeStringSize(field, value);
  }

  /**
   * Writes a string field unless {@code value} is empty.
   *
   * @param out where to write
   * @param field the field number
   * @param value the string
   * @throws IOException if {@code out} cannot be written
   */
  public static void string(CodedOutputStream out, int field, String value) throws IOException {
    if (!value.isEmpty()) {
      out.writeString(field, value);
    }
  }
}
