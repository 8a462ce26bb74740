package io.frsm.client.transport;

import java.time.Duration;
import java.util.Objects;

/**
 * Settings of the Netty transport, peer and client side alike. Every setting has a default; sizes
 * carry their unit in the name, times are {@link Duration}s. Built with {@link #builder(String)},
 * one named setter per setting; immutable.
 */
public final class TransportConfig {
  /** Netty takes the connect timeout as an {@code int} of milliseconds. */
  private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofMillis(Integer.MAX_VALUE);

  private final String clusterId;
  private final int maxFrameBytes;
  private final int maxQueuedFramesPerConnection;
  private final int writeBufferLowWaterMarkBytes;
  private final int writeBufferHighWaterMarkBytes;
  private final Duration connectTimeout;
  private final Duration reconnectBackoffMin;
  private final Duration reconnectBackoffMax;
  private final int maxInboundConnections;
  private final int maxInboundConnectionsPerAddress;
  private final Duration partialFrameTimeout;
  private final int partialFrameBudgetBytes;
  private final int nodeFrameBudgetBytes;
  private final Duration idleTimeout;
  private final Duration keepaliveInterval;

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
    this.connectTimeout = atLeastOneMilli(b.connectTimeout, "connectTimeout");
    if (connectTimeout.compareTo(MAX_CONNECT_TIMEOUT) > 0) {
      throw new IllegalArgumentException(
          "connectTimeout must be at most " + MAX_CONNECT_TIMEOUT + ", was " + connectTimeout);
    }
    this.reconnectBackoffMin = atLeastOneMilli(b.reconnectBackoffMin, "reconnectBackoffMin");
    this.reconnectBackoffMax = atLeastOneMilli(b.reconnectBackoffMax, "reconnectBackoffMax");
    if (reconnectBackoffMin.compareTo(reconnectBackoffMax) > 0) {
      throw new IllegalArgumentException("reconnectBackoffMin must not exceed reconnectBackoffMax");
    }
    this.maxInboundConnections = positive(b.maxInboundConnections, "maxInboundConnections");
    this.maxInboundConnectionsPerAddress =
        positive(b.maxInboundConnectionsPerAddress, "maxInboundConnectionsPerAddress");
    this.partialFrameTimeout = atLeastOneMilli(b.partialFrameTimeout, "partialFrameTimeout");
    this.partialFrameBudgetBytes = positive(b.partialFrameBudgetBytes, "partialFrameBudgetBytes");
    // Else a frame the limit allows could never be received whole.
    if (partialFrameBudgetBytes < maxFrameBytes) {
      throw new IllegalArgumentException(
          "partialFrameBudgetBytes ("
              + partialFrameBudgetBytes
              + ") must be at least maxFrameBytes ("
              + maxFrameBytes
              + ")");
    }
    this.nodeFrameBudgetBytes = positive(b.nodeFrameBudgetBytes, "nodeFrameBudgetBytes");
    if (nodeFrameBudgetBytes < maxFrameBytes) {
      throw new IllegalArgumentException(
          "nodeFrameBudgetBytes ("
              + nodeFrameBudgetBytes
              + ") must be at least maxFrameBytes ("
              + maxFrameBytes
              + ")");
    }
    this.idleTimeout = atLeastOneMilli(b.idleTimeout, "idleTimeout");
    this.keepaliveInterval =
        b.keepaliveInterval != null
            ? atLeastOneMilli(b.keepaliveInterval, "keepaliveInterval")
            : defaultKeepalive(idleTimeout);
    // Else this side's own keep-alives could not keep its connections open at a receiver that
    // runs the same settings (a node's peers always do).
    if (keepaliveInterval.compareTo(idleTimeout) >= 0) {
      throw new IllegalArgumentException(
          "keepaliveInterval ("
              + keepaliveInterval
              + ") must be shorter than idleTimeout ("
              + idleTimeout
              + ")");
    }
  }

  /**
   * A third of the idle timeout: two keep-alives may be lost or late before a connection is cut.
   */
  private static Duration defaultKeepalive(Duration idleTimeout) {
    Duration third = idleTimeout.dividedBy(3);
    return third.toMillis() < 1 ? Duration.ofMillis(1) : third;
  }

  private static int positive(int v, String name) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, was " + v);
    }
    return v;
  }

  /** The transport counts these in whole milliseconds: anything shorter would round to none. */
  private static Duration atLeastOneMilli(Duration v, String name) {
    Objects.requireNonNull(v, name);
    if (v.toMillis() < 1) {
      throw new IllegalArgumentException(name + " must be at least 1 ms, was " + v);
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

  /** A connection whose write buffer drops below this is writable again. */
  public int writeBufferLowWaterMarkBytes() {
    return writeBufferLowWaterMarkBytes;
  }

  /** Above this the connection is unwritable and frames wait in its queue. */
  public int writeBufferHighWaterMarkBytes() {
    return writeBufferHighWaterMarkBytes;
  }

  /** Dialing gives up after this; whole milliseconds, at most {@code Integer.MAX_VALUE} of them. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** A lost connection is dialed again after this, doubling per failed attempt. */
  public Duration reconnectBackoffMin() {
    return reconnectBackoffMin;
  }

  /** ... up to this. */
  public Duration reconnectBackoffMax() {
    return reconnectBackoffMax;
  }

  /** Connections one listening port holds at most; more are closed on arrival. */
  public int maxInboundConnections() {
    return maxInboundConnections;
  }

  /**
   * Connections one listening port holds at most from one remote IP address; more from it are
   * closed on arrival. Above {@link #maxInboundConnections} it changes nothing.
   */
  public int maxInboundConnectionsPerAddress() {
    return maxInboundConnectionsPerAddress;
  }

  /** A frame begun on an inbound connection must be complete within this, or it is closed. */
  public Duration partialFrameTimeout() {
    return partialFrameTimeout;
  }

  /**
   * The bytes a listening port holds for frames begun but not yet complete, all its connections
   * together (each frame counted at its declared length); a frame beyond it closes its connection.
   */
  public int partialFrameBudgetBytes() {
    return partialFrameBudgetBytes;
  }

  /**
   * The bytes all listening ports on one {@link TransportEventLoops} (a node's peer and client
   * ports) hold together for frames begun but not yet complete; a frame beyond it closes its
   * connection, whichever port it arrived on. Bounds a node's direct memory with one number where
   * {@link #partialFrameBudgetBytes()} bounds each port.
   */
  public int nodeFrameBudgetBytes() {
    return nodeFrameBudgetBytes;
  }

  /**
   * An inbound connection (peer or client port) that received nothing for this long — no frame, no
   * keep-alive, not a byte — is closed. Dialed connections send keep-alives every {@link
   * #keepaliveInterval()} while they have nothing else to send, so only dead, silent or leaked
   * connections reach it.
   */
  public Duration idleTimeout() {
    return idleTimeout;
  }

  /**
   * A dialed connection (a client's, a peer's) that wrote nothing for this long writes a keep-alive
   * frame; shorter than {@link #idleTimeout()} (by default a third of it).
   */
  public Duration keepaliveInterval() {
    return keepaliveInterval;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TransportConfig t
        && clusterId.equals(t.clusterId)
        && maxFrameBytes == t.maxFrameBytes
        && maxQueuedFramesPerConnection == t.maxQueuedFramesPerConnection
        && writeBufferLowWaterMarkBytes == t.writeBufferLowWaterMarkBytes
        && writeBufferHighWaterMarkBytes == t.writeBufferHighWaterMarkBytes
        && connectTimeout.equals(t.connectTimeout)
        && reconnectBackoffMin.equals(t.reconnectBackoffMin)
        && reconnectBackoffMax.equals(t.reconnectBackoffMax)
        && maxInboundConnections == t.maxInboundConnections
        && maxInboundConnectionsPerAddress == t.maxInboundConnectionsPerAddress
        && partialFrameTimeout.equals(t.partialFrameTimeout)
        && partialFrameBudgetBytes == t.partialFrameBudgetBytes
        && nodeFrameBudgetBytes == t.nodeFrameBudgetBytes
        && idleTimeout.equals(t.idleTimeout)
        && keepaliveInterval.equals(t.keepaliveInterval);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        clusterId,
        maxFrameBytes,
        maxQueuedFramesPerConnection,
        writeBufferLowWaterMarkBytes,
        writeBufferHighWaterMarkBytes,
        connectTimeout,
        reconnectBackoffMin,
        reconnectBackoffMax,
        maxInboundConnections,
        maxInboundConnectionsPerAddress,
        partialFrameTimeout,
        partialFrameBudgetBytes,
        nodeFrameBudgetBytes,
        idleTimeout,
        keepaliveInterval);
  }

  @Override
  public String toString() {
    return "TransportConfig{clusterId="
        + clusterId
        + ", maxFrameBytes="
        + maxFrameBytes
        + ", maxQueuedFramesPerConnection="
        + maxQueuedFramesPerConnection
        + ", writeBufferLowWaterMarkBytes="
        + writeBufferLowWaterMarkBytes
        + ", writeBufferHighWaterMarkBytes="
        + writeBufferHighWaterMarkBytes
        + ", connectTimeout="
        + connectTimeout
        + ", reconnectBackoffMin="
        + reconnectBackoffMin
        + ", reconnectBackoffMax="
        + reconnectBackoffMax
        + ", maxInboundConnections="
        + maxInboundConnections
        + ", maxInboundConnectionsPerAddress="
        + maxInboundConnectionsPerAddress
        + ", partialFrameTimeout="
        + partialFrameTimeout
        + ", partialFrameBudgetBytes="
        + partialFrameBudgetBytes
        + ", nodeFrameBudgetBytes="
        + nodeFrameBudgetBytes
        + ", idleTimeout="
        + idleTimeout
        + ", keepaliveInterval="
        + keepaliveInterval
        + "}";
  }

  /**
   * Builder with documented defaults. Each getter returns what the setter of the same name last set
   * (or the default), unchecked: {@link #build()} validates, so a caller may set the water marks or
   * back-off bounds one at a time in any order.
   */
  public static final class Builder {
    private final String clusterId;
    private int maxFrameBytes = WireFormat.DEFAULT_MAX_FRAME_BYTES;
    private int maxQueuedFramesPerConnection = 16_384;
    private int writeBufferLowWaterMarkBytes = 1024 * 1024;
    private int writeBufferHighWaterMarkBytes = 4 * 1024 * 1024;
    private Duration connectTimeout = Duration.ofSeconds(2);
    private Duration reconnectBackoffMin = Duration.ofMillis(20);
    private Duration reconnectBackoffMax = Duration.ofSeconds(2);
    private int maxInboundConnections = 4096;
    private int maxInboundConnectionsPerAddress = 256;
    private Duration partialFrameTimeout = Duration.ofSeconds(30);
    private int partialFrameBudgetBytes = 256 * 1024 * 1024;

    /**
     * A quarter of the direct memory of the launcher's default heap (-Xmx2g, and so 2 GiB of direct
     * memory): half-sent frames grow their buffers in powers of two, so up to twice this.
     */
    private int nodeFrameBudgetBytes = 256 * 1024 * 1024;

    private Duration idleTimeout = Duration.ofSeconds(60);

    /** Null: a third of {@link #idleTimeout}. */
    private Duration keepaliveInterval;

    private Builder(String clusterId) {
      this.clusterId = clusterId;
    }

    /** Default 16 MiB + 128 KiB ({@link WireFormat#DEFAULT_MAX_FRAME_BYTES}). */
    public Builder maxFrameBytes(int v) {
      this.maxFrameBytes = v;
      return this;
    }

    public int maxFrameBytes() {
      return maxFrameBytes;
    }

    /** Default 16384. */
    public Builder maxQueuedFramesPerConnection(int v) {
      this.maxQueuedFramesPerConnection = v;
      return this;
    }

    public int maxQueuedFramesPerConnection() {
      return maxQueuedFramesPerConnection;
    }

    /** Default 1 MiB; at most the high water mark. */
    public Builder writeBufferLowWaterMarkBytes(int v) {
      this.writeBufferLowWaterMarkBytes = v;
      return this;
    }

    public int writeBufferLowWaterMarkBytes() {
      return writeBufferLowWaterMarkBytes;
    }

    /** Default 4 MiB. */
    public Builder writeBufferHighWaterMarkBytes(int v) {
      this.writeBufferHighWaterMarkBytes = v;
      return this;
    }

    public int writeBufferHighWaterMarkBytes() {
      return writeBufferHighWaterMarkBytes;
    }

    /** Default 2 s. */
    public Builder connectTimeout(Duration v) {
      this.connectTimeout = Objects.requireNonNull(v, "connectTimeout");
      return this;
    }

    public Duration connectTimeout() {
      return connectTimeout;
    }

    /** Default 20 ms; the first redial waits this, doubling per failed attempt. */
    public Builder reconnectBackoffMin(Duration v) {
      this.reconnectBackoffMin = Objects.requireNonNull(v, "reconnectBackoffMin");
      return this;
    }

    public Duration reconnectBackoffMin() {
      return reconnectBackoffMin;
    }

    /** Default 2 s; at least {@link #reconnectBackoffMin}. */
    public Builder reconnectBackoffMax(Duration v) {
      this.reconnectBackoffMax = Objects.requireNonNull(v, "reconnectBackoffMax");
      return this;
    }

    public Duration reconnectBackoffMax() {
      return reconnectBackoffMax;
    }

    /** Default 4096 per listening port (peer, client). */
    public Builder maxInboundConnections(int v) {
      this.maxInboundConnections = v;
      return this;
    }

    public int maxInboundConnections() {
      return maxInboundConnections;
    }

    /**
     * Default 256 per listening port and remote IP address: a client machine, or a NAT in front of
     * many, needs a few connections per node; one address that opens thousands is refused before it
     * takes the port's whole {@link #maxInboundConnections}.
     */
    public Builder maxInboundConnectionsPerAddress(int v) {
      this.maxInboundConnectionsPerAddress = v;
      return this;
    }

    public int maxInboundConnectionsPerAddress() {
      return maxInboundConnectionsPerAddress;
    }

    /** Default 30 s. */
    public Builder partialFrameTimeout(Duration v) {
      this.partialFrameTimeout = Objects.requireNonNull(v, "partialFrameTimeout");
      return this;
    }

    public Duration partialFrameTimeout() {
      return partialFrameTimeout;
    }

    /** Default 256 MiB per listening port; at least {@link #maxFrameBytes}. */
    public Builder partialFrameBudgetBytes(int v) {
      this.partialFrameBudgetBytes = v;
      return this;
    }

    public int partialFrameBudgetBytes() {
      return partialFrameBudgetBytes;
    }

    /**
     * Default 256 MiB for all listening ports on one set of event loops together; at least {@link
     * #maxFrameBytes}.
     */
    public Builder nodeFrameBudgetBytes(int v) {
      this.nodeFrameBudgetBytes = v;
      return this;
    }

    public int nodeFrameBudgetBytes() {
      return nodeFrameBudgetBytes;
    }

    /**
     * Default 60 s: an inbound connection silent this long is closed. Long enough that a client
     * with the default keep-alive (20 s) survives two lost ones.
     */
    public Builder idleTimeout(Duration v) {
      this.idleTimeout = Objects.requireNonNull(v, "idleTimeout");
      return this;
    }

    public Duration idleTimeout() {
      return idleTimeout;
    }

    /**
     * Default (null) a third of {@link #idleTimeout}; shorter than it. A client sets this to a
     * third of the shortest {@code transport.idleTimeout} of the nodes it talks to.
     */
    public Builder keepaliveInterval(Duration v) {
      this.keepaliveInterval = v;
      return this;
    }

    public Duration keepaliveInterval() {
      return keepaliveInterval;
    }

    public TransportConfig build() {
      return new TransportConfig(this);
    }
  }
}
