package io.frsm.server.stream;

import io.frsm.transport.stream.StreamWire;
import java.time.Duration;

/**
 * How a node streams ranges (docs/OPERATIONS.md, keys {@code stream.*}; the others are fixed here).
 * Immutable.
 *
 * @param maxBytesPerSecond limit on the bytes this node sends and, separately, receives over all
 *     its streams; 0 for none
 * @param chunkBytes the size of one chunk (1 byte to {@link StreamWire#MAX_CHUNK_BYTES})
 * @param windowChunks chunks a receiver asks for before the first answer arrives
 * @param maxChunkRetries how often one chunk may fail verification before the copy fails
 * @param snapshotTtl how long a source keeps an unused snapshot for a receiver to resume
 * @param maxSourceSessions copies a node serves at once; more are refused (the receiver retries)
 * @param reconnects how many times a receiver reconnects to resume after the connection was lost
 * @param idleTimeout a stream connection with nothing received for this long is closed
 */
public record StreamSettings(
    long maxBytesPerSecond,
    int chunkBytes,
    int windowChunks,
    int maxChunkRetries,
    Duration snapshotTtl,
    int maxSourceSessions,
    int reconnects,
    Duration idleTimeout) {

  /** What a source allows a receiver to have asked and not yet been answered. */
  static final int MAX_OUTSTANDING_READS = 64;

  public StreamSettings {
    if (maxBytesPerSecond < 0) {
      throw new IllegalArgumentException("maxBytesPerSecond must be >= 0");
    }
    if (chunkBytes < 1 || chunkBytes > StreamWire.MAX_CHUNK_BYTES) {
      throw new IllegalArgumentException(
          "chunkBytes must be in [1, " + StreamWire.MAX_CHUNK_BYTES + "], was " + chunkBytes);
    }
    if (windowChunks < 1 || windowChunks > MAX_OUTSTANDING_READS) {
      throw new IllegalArgumentException(
          "windowChunks must be in [1, " + MAX_OUTSTANDING_READS + "], was " + windowChunks);
    }
    if (maxChunkRetries < 0 || maxSourceSessions < 1 || reconnects < 0) {
      throw new IllegalArgumentException(
          "maxChunkRetries >= 0, maxSourceSessions >= 1 and reconnects >= 0");
    }
    if (snapshotTtl.isNegative() || snapshotTtl.isZero() || idleTimeout.toMillis() < 1) {
      throw new IllegalArgumentException("snapshotTtl and idleTimeout must be positive");
    }
  }

  /**
   * Defaults: unthrottled, 1 MiB chunks, a window of 8, 3 retries, snapshots kept 1 hour, 5
   * reconnects, connections idle for 10 minutes closed. The receiver hears nothing while the source
   * exports the range, so the idle timeout bounds the export of one range (about 6 s per million
   * keys of 512 B measured here).
   */
  public static StreamSettings defaults() {
    return new StreamSettings(0, 1 << 20, 8, 3, Duration.ofHours(1), 4, 5, Duration.ofMinutes(10));
  }

  public StreamSettings withMaxBytesPerSecond(long bytesPerSecond) {
    return new StreamSettings(
        bytesPerSecond,
        chunkBytes,
        windowChunks,
        maxChunkRetries,
        snapshotTtl,
        maxSourceSessions,
        reconnects,
        idleTimeout);
  }

  public StreamSettings withSnapshotTtl(Duration ttl) {
    return new StreamSettings(
        maxBytesPerSecond,
        chunkBytes,
        windowChunks,
        maxChunkRetries,
        ttl,
        maxSourceSessions,
        reconnects,
        idleTimeout);
  }

  public StreamSettings withChunkBytes(int bytes) {
    return new StreamSettings(
        maxBytesPerSecond,
        bytes,
        windowChunks,
        maxChunkRetries,
        snapshotTtl,
        maxSourceSessions,
        reconnects,
        idleTimeout);
  }
}
