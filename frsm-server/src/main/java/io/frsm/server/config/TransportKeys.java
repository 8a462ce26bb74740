package io.frsm.server.config;

import io.frsm.client.transport.TransportConfig;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code transport} section, peer and client protocol alike. All but {@link
 * #THREADS} are settings of {@link TransportConfig}, whose builder holds their defaults; the rules
 * between them and the storage engine's limits are {@link ConfigRules}'.
 */
public final class TransportKeys {
  private TransportKeys() {}

  /** 0 picks {@link NodeDefaults#transportThreads(int)} of the machine's CPUs. */
  public static final ConfigKey<Integer> THREADS =
      ConfigKey.of("transport.threads", ValueType.INTEGER, 0)
          .range(0, 1024)
          .option("transportThreads")
          .doc("Netty event-loop threads; 0: one with up to 2 CPUs, else two");

  public static final ConfigKey<Integer> MAX_FRAME_BYTES =
      ConfigKey.transport(
              "maxFrameBytes",
              ValueType.INT_BYTES,
              TransportConfig.Builder::maxFrameBytes,
              TransportConfig.Builder::maxFrameBytes)
          .atLeast(1)
          .doc("the largest frame sent or accepted");

  public static final ConfigKey<Integer> MAX_QUEUED_FRAMES_PER_CONNECTION =
      ConfigKey.transport(
              "maxQueuedFramesPerConnection",
              ValueType.INTEGER,
              TransportConfig.Builder::maxQueuedFramesPerConnection,
              TransportConfig.Builder::maxQueuedFramesPerConnection)
          .atLeast(1)
          .doc("frames waiting on an unwritable or unconnected connection before sends fail fast");

  public static final ConfigKey<Integer> WRITE_BUFFER_LOW_WATER_MARK_BYTES =
      ConfigKey.transport(
              "writeBufferLowWaterMarkBytes",
              ValueType.INT_BYTES,
              TransportConfig.Builder::writeBufferLowWaterMarkBytes,
              TransportConfig.Builder::writeBufferLowWaterMarkBytes)
          .atLeast(1)
          .doc("a connection is writable again below this (at most the high mark)");

  public static final ConfigKey<Integer> WRITE_BUFFER_HIGH_WATER_MARK_BYTES =
      ConfigKey.transport(
              "writeBufferHighWaterMarkBytes",
              ValueType.INT_BYTES,
              TransportConfig.Builder::writeBufferHighWaterMarkBytes,
              TransportConfig.Builder::writeBufferHighWaterMarkBytes)
          .atLeast(1)
          .doc("above this a connection is unwritable and frames queue");

  public static final ConfigKey<Duration> CONNECT_TIMEOUT =
      ConfigKey.transport(
              "connectTimeout",
              ValueType.DURATION,
              TransportConfig.Builder::connectTimeout,
              TransportConfig.Builder::connectTimeout)
          .range(Timings.ONE_MS, Timings.MAX)
          .doc("dialing a peer or node gives up after this");

  public static final ConfigKey<Duration> RECONNECT_BACKOFF_MIN =
      ConfigKey.transport(
              "reconnectBackoffMin",
              ValueType.DURATION,
              TransportConfig.Builder::reconnectBackoffMin,
              TransportConfig.Builder::reconnectBackoffMin)
          .range(Timings.ONE_MS, Timings.MAX)
          .doc("a lost peer connection is dialed again after this, doubling per failed attempt");

  public static final ConfigKey<Duration> RECONNECT_BACKOFF_MAX =
      ConfigKey.transport(
              "reconnectBackoffMax",
              ValueType.DURATION,
              TransportConfig.Builder::reconnectBackoffMax,
              TransportConfig.Builder::reconnectBackoffMax)
          .range(Timings.ONE_MS, Timings.MAX)
          .doc("... up to this");

  public static final ConfigKey<Integer> MAX_INBOUND_CONNECTIONS =
      ConfigKey.transport(
              "maxInboundConnections",
              ValueType.INTEGER,
              TransportConfig.Builder::maxInboundConnections,
              TransportConfig.Builder::maxInboundConnections)
          .range(1, 1_000_000)
          .doc("open connections per listening port (peer, client); one more is closed on arrival");

  public static final ConfigKey<Integer> MAX_INBOUND_CONNECTIONS_PER_ADDRESS =
      ConfigKey.transport(
              "maxInboundConnectionsPerAddress",
              ValueType.INTEGER,
              TransportConfig.Builder::maxInboundConnectionsPerAddress,
              TransportConfig.Builder::maxInboundConnectionsPerAddress)
          .range(1, 1_000_000)
          .doc(
              "open connections per listening port from one remote IP address; one more from it is"
                  + " closed on arrival");

  public static final ConfigKey<Duration> PARTIAL_FRAME_TIMEOUT =
      ConfigKey.transport(
              "partialFrameTimeout",
              ValueType.DURATION,
              TransportConfig.Builder::partialFrameTimeout,
              TransportConfig.Builder::partialFrameTimeout)
          .range(Timings.ONE_MS, Timings.MAX)
          .doc(
              "an inbound connection that began a frame and has not completed it by then is closed");

  public static final ConfigKey<Integer> PARTIAL_FRAME_BUDGET_BYTES =
      ConfigKey.transport(
              "partialFrameBudgetBytes",
              ValueType.INT_BYTES,
              TransportConfig.Builder::partialFrameBudgetBytes,
              TransportConfig.Builder::partialFrameBudgetBytes)
          .atLeast(1)
          .doc(
              "bytes per listening port for inbound frames begun but not complete (each at its"
                  + " declared length; at least maxFrameBytes); a frame beyond it closes its"
                  + " connection");

  public static final ConfigKey<Integer> NODE_FRAME_BUDGET_BYTES =
      ConfigKey.transport(
              "nodeFrameBudgetBytes",
              ValueType.INT_BYTES,
              TransportConfig.Builder::nodeFrameBudgetBytes,
              TransportConfig.Builder::nodeFrameBudgetBytes)
          .atLeast(1)
          .doc(
              "bytes for inbound frames begun but not complete, all the node's listening ports"
                  + " together (at least maxFrameBytes); a frame beyond it closes its connection");

  public static final ConfigKey<Duration> IDLE_TIMEOUT =
      ConfigKey.transport(
              "idleTimeout",
              ValueType.DURATION,
              TransportConfig.Builder::idleTimeout,
              TransportConfig.Builder::idleTimeout)
          .range(Duration.ofMillis(3), Timings.MAX)
          .doc(
              "an inbound connection (peer or client port) that received nothing, not even a"
                  + " keep-alive, for this long is closed; this node's peer connections send a"
                  + " keep-alive after a third of it without traffic");

  static final List<ConfigKey<?>> ALL =
      List.of(
          THREADS,
          MAX_FRAME_BYTES,
          MAX_QUEUED_FRAMES_PER_CONNECTION,
          WRITE_BUFFER_LOW_WATER_MARK_BYTES,
          WRITE_BUFFER_HIGH_WATER_MARK_BYTES,
          CONNECT_TIMEOUT,
          RECONNECT_BACKOFF_MIN,
          RECONNECT_BACKOFF_MAX,
          MAX_INBOUND_CONNECTIONS,
          MAX_INBOUND_CONNECTIONS_PER_ADDRESS,
          PARTIAL_FRAME_TIMEOUT,
          PARTIAL_FRAME_BUDGET_BYTES,
          NODE_FRAME_BUDGET_BYTES,
          IDLE_TIMEOUT);
}
