package io.frsm.transport;

/**
 * Settings of the Netty transport, peer and client side alike. Every key has a default; units are
 * in the names. Built with {@link #builder(String)}; immutable.
 */
public final class TransportConfig {
  private final String clusterId;
  private final int maxFrameBytes;
  private final int maxQueuedFramesPerConnection;
  private final int writeBufferLowWaterMarkBytes;
  private final int writeBufferHighWaterMarkBytes;
  private final int connectTimeoutMillis;
  private final long reconnectBackoffMinMillis;
  private final long reconnectBackoffMaxMillis;

  private TransportConfig(Builder b) {
    this.clusterId = WireFormat.requireValidClusterId(b.clusterId);
    this.maxFrameBytes = positive(b.maxFrameBytes, "maxFrameBytes");
    this.maxQueuedFramesPerConnection =
        positive(b.maxQueuedFramesPerConnection, "maxQueuedFramesPerConnection");
    this.writeBufferLowWaterMarkBytes =
        positive(b.writeBufferLowWaterMarkBytes, "writeBufferLowWaterMarkBytes");
    this.writeBufferHighWaterMarkBytes =
        positive(b.writeBufferHighWaterMarkBytes, "writeBufferHighWaterMarkBytes");
    if (writeBufferLowWaterMarkBytes > writeBufferHighWaterMarkBytes) {
      throw new IllegalArgumentException(
          "writeBufferLowWaterMarkBytes must not exceed writeBufferHighWaterMarkBytes");
    }
    this.connectTimeoutMillis = positive(b.connectTimeoutMillis, "connectTimeoutMillis");
    this.reconnectBackoffMinMillis =
        positive(b.reconnectBackoffMinMillis, "reconnectBackoffMinMillis");
    this.reconnectBackoffMaxMillis =
        positive(b.reconnectBackoffMaxMillis, "reconnectBackoffMaxMillis");
    if (reconnectBackoffMinMillis > reconnectBackoffMaxMillis) {
      throw new IllegalArgumentException(
          "reconnectBackoffMinMillis must not exceed reconnectBackoffMaxMillis");
    }
  }

  private static int positive(int v, String name) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, was " + v);
    }
    return v;
  }

  private static long positive(long v, String name) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, was " + v);
    }
    return v;
  }

  /** {@code clusterId}: 1-64 bytes of UTF-8, equal on every node and client of a cluster. */
  public static Builder builder(String clusterId) {
    return new Builder(clusterId);
  }

  public String clusterId() {
    return clusterId;
  }

  /** Largest envelope accepted or sent, length prefix excluded. */
  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /**
   * Frames a connection holds beyond Netty's write buffer: while the channel is unwritable (its
   * write buffer is above the high water mark) or not yet connected, frames wait here; when this
   * many wait, further sends fail fast.
   */
  public int maxQueuedFramesPerConnection() {
    return maxQueuedFramesPerConnection;
  }

  public int writeBufferLowWaterMarkBytes() {
    return writeBufferLowWaterMarkBytes;
  }

  public int writeBufferHighWaterMarkBytes() {
    return writeBufferHighWaterMarkBytes;
  }

  public int connectTimeoutMillis() {
    return connectTimeoutMillis;
  }

  public long reconnectBackoffMinMillis() {
    return reconnectBackoffMinMillis;
  }

  public long reconnectBackoffMaxMillis() {
    return reconnectBackoffMaxMillis;
  }

  /** Builder with documented defaults. */
  public static final class Builder {
    private final String clusterId;
    private int maxFrameBytes = WireFormat.DEFAULT_MAX_FRAME_BYTES;
    private int maxQueuedFramesPerConnection = 16_384;
    private int writeBufferLowWaterMarkBytes = 1024 * 1024;
    private int writeBufferHighWaterMarkBytes = 4 * 1024 * 1024;
    private int connectTimeoutMillis = 2_000;
    private long reconnectBackoffMinMillis = 20;
    private long reconnectBackoffMaxMillis = 2_000;

    private Builder(String clusterId) {
      this.clusterId = clusterId;
    }

    /** Default 16 MiB + 128 KiB ({@link WireFormat#DEFAULT_MAX_FRAME_BYTES}). */
    public Builder maxFrameBytes(int v) {
      this.maxFrameBytes = v;
      return this;
    }

    /** Default 16384. */
    public Builder maxQueuedFramesPerConnection(int v) {
      this.maxQueuedFramesPerConnection = v;
      return this;
    }

    /** Default 1 MiB low, 4 MiB high. */
    public Builder writeBufferWaterMarksBytes(int low, int high) {
      this.writeBufferLowWaterMarkBytes = low;
      this.writeBufferHighWaterMarkBytes = high;
      return this;
    }

    /** Default 2000 ms. */
    public Builder connectTimeoutMillis(int v) {
      this.connectTimeoutMillis = v;
      return this;
    }

    /** Default 20 ms, doubling per failed attempt up to 2000 ms. */
    public Builder reconnectBackoffMillis(long min, long max) {
      this.reconnectBackoffMinMillis = min;
      this.reconnectBackoffMaxMillis = max;
      return this;
    }

    public TransportConfig build() {
      return new TransportConfig(this);
    }
  }
}
