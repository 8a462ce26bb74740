package io.frsm.client.transport;

import java.nio.charset.StandardCharsets;

/**
 * Constants of the frsm wire format (docs/formats/wire.md). Every frame is a 4-byte big-endian
 * length followed by that many bytes of one protobuf envelope ({@code PeerEnvelope} on peer
 * connections, {@code ClientEnvelope} on client connections).
 */
public final class WireFormat {
  private WireFormat() {}

  /**
   * DO NOT CHANGE without a compatibility plan: a receiver refuses every other version. Bump it
   * when a change cannot be ignored by an older reader (a new required field, a new meaning).
   */
  public static final int PROTOCOL_VERSION = 1;

  /** DO NOT CHANGE: the length prefix is a big-endian signed 32-bit int. */
  public static final int LENGTH_PREFIX_BYTES = 4;

  /**
   * Default frame limit, excluding the length prefix: a 16 MiB value plus room for the key (the
   * LSM's default key limit is 64 KiB) and the envelope's other fields.
   */
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024 + 128 * 1024;

  /**
   * The largest epoch, timestamp and invocation time τ (µs) the client protocol carries; a CAS or
   * delete's expected timestamp must be below it (the write lands at timestamp + 1). DO NOT CHANGE:
   * it is the consensus core's {@code InputBounds.MAX_NUMBER}, which the node's tests pin to this
   * value, duplicated so that the client needs no core.
   */
  public static final long MAX_NUMBER = Long.MAX_VALUE / 2;

  /** A cluster id is 1 to this many bytes of UTF-8. */
  public static final int MAX_CLUSTER_ID_BYTES = 64;

  /** Checks a configured cluster id; returns it. */
  public static String requireValidClusterId(String clusterId) {
    if (clusterId == null || clusterId.isEmpty()) {
      throw new IllegalArgumentException("cluster id must be non-empty");
    }
    int bytes = clusterId.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > MAX_CLUSTER_ID_BYTES) {
      throw new IllegalArgumentException(
          "cluster id must be at most " + MAX_CLUSTER_ID_BYTES + " bytes, was " + bytes);
    }
    return clusterId;
  }
}
