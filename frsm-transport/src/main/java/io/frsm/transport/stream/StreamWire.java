package io.frsm.transport.stream;

import com.google.protobuf.ByteString;
import io.frsm.transport.proto.StreamEnvelope;
import java.util.regex.Pattern;

/**
 * The stream protocol's constants (docs/formats/streaming.md). DO NOT CHANGE the preamble or the
 * version without a new protocol version: nodes of different builds talk to each other.
 */
public final class StreamWire {
  private StreamWire() {}

  /**
   * The first 8 bytes a receiver writes on a connection to a source's peer port. Its first byte has
   * the high bit set: read as a peer frame's int32 length it is negative, which no peer frame can
   * be, so the two protocols share the port without ambiguity
   * (io.frsm.client.transport.ConnectionPreamble).
   */
  private static final byte[] PREAMBLE = {(byte) 0xFE, 'S', 'T', 'R', 'E', 'A', 'M', 0x01};

  public static final int PREAMBLE_BYTES = PREAMBLE.length;

  public static final int PROTOCOL_VERSION = 1;

  /** The largest chunk a receiver may ask for or a source may send. */
  public static final int MAX_CHUNK_BYTES = 4 * 1024 * 1024;

  /** A frame's limit on a stream connection: a full chunk and the envelope around it. */
  public static final int MAX_FRAME_BYTES = MAX_CHUNK_BYTES + 64 * 1024;

  /** The most files a manifest may list. */
  public static final int MAX_FILES = 4096;

  /** The longest error text either side sends or accepts (longer text is cut). */
  public static final int MAX_ERROR_CHARS = 1024;

  /** A file name in a manifest or progress list: never a path, never hidden. */
  private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}");

  /** A snapshot id: lower-case hex, 1-32 digits (it names a directory on the source). */
  private static final Pattern SNAPSHOT_ID = Pattern.compile("[0-9a-f]{1,32}");

  public static byte[] preamble() {
    return PREAMBLE.clone();
  }

  public static boolean validFileName(String name) {
    return FILE_NAME.matcher(name).matches();
  }

  public static boolean validSnapshotId(String id) {
    return SNAPSHOT_ID.matcher(id).matches();
  }

  /** An envelope of this protocol's version from {@code sender} of {@code clusterId}. */
  public static StreamEnvelope.Builder envelope(String clusterId, int sender) {
    return StreamEnvelope.newBuilder()
        .setProtocolVersion(PROTOCOL_VERSION)
        .setClusterIdBytes(ByteString.copyFromUtf8(clusterId))
        .setSenderNodeId(sender);
  }

  /** {@code message} cut to {@link #MAX_ERROR_CHARS}. */
  public static String errorText(String message) {
    String m = message == null ? "unknown error" : message;
    return m.length() <= MAX_ERROR_CHARS ? m : m.substring(0, MAX_ERROR_CHARS);
  }
}
