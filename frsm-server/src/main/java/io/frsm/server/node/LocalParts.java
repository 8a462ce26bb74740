package io.frsm.server.node;

import io.frsm.client.ClientConnections;
import io.frsm.client.RequestLimits;
import io.frsm.client.SessionCounters;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.lsm.LsmConfig;
import io.frsm.server.admin.NodeAdmin;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.StreamKeys;
import io.frsm.server.stream.RangeStreams;
import io.frsm.server.stream.StreamSettings;
import java.io.IOException;
import java.util.function.BooleanSupplier;

/**
 * The parts a node starts before it joins the cluster, in this order: its meters, storage (the
 * engine replays its commit log and the boot counter is incremented), the disk space watch, range
 * streams, the operation router, the transports and the embedded clients. Each is set as soon as it
 * exists, so a stop closes what started even if a later part failed ({@link #stop}).
 *
 * <p>The fields are written once by {@link #start} under the node's monitor; those other threads
 * read (meters, admin, routing) are volatile.
 */
final class LocalParts {
  volatile NodeMetrics metrics;
  volatile NodeStorage storage;
  DiskSpaceWatch diskSpace;
  volatile OperationRouter router;
  volatile NodeTransports transports;
  volatile RangeStreams streams;
  EmbeddedClients clients;

  /**
   * Starts the parts of node {@code settings.nodeId()}: {@code serving} runs the operations once
   * the cluster formed, {@code adminSite} is the node as admin commands see it, {@code stopped}
   * tells the router the node stops.
   */
  void start(
      NodeSettings settings,
      Serving serving,
      ClusterMembers members,
      NodeTopology topology,
      NodeAdminSite adminSite,
      BooleanSupplier stopped)
      throws IOException {
    int nodeId = settings.nodeId();
    LsmConfig lsmConfig = settings.lsmConfig();
    SessionCounters sessions = new SessionCounters();
    metrics =
        new NodeMetrics(
            settings.meterRegistry(),
            serving::core,
            serving::leadership,
            sessions,
            this::refusedPeerFrames);
    storage =
        NodeStorage.open(
            lsmConfig,
            settings.meterRegistry(),
            settings.get(NodeKeys.DATA_DIRECTORY),
            settings.get(ConsensusKeys.CLOCK_CACHE_BYTES));
    diskSpace = DiskSpaceWatch.start(nodeId, settings, lsmConfig, storage.engine(), metrics);
    storage.announce(nodeId, metrics);
    TransportConfig transportConfig = settings.transportConfig();
    ChannelSecurity security = NodeSecurity.of(settings);
    TransportEventLoops loops = TransportEventLoops.create(settings.transportLoops(), true);
    try {
      streams =
          RangeStreams.start(
              nodeId,
              settings.get(NodeKeys.CLUSTER_ID),
              security,
              loops,
              members::peerAddress,
              settings.get(NodeKeys.DATA_DIRECTORY),
              storage.engine(),
              new ClockCacheFence(storage.cells()),
              StreamSettings.defaults()
                  .withMaxBytesPerSecond(settings.get(StreamKeys.MAX_BYTES_PER_SECOND))
                  .withSnapshotTtl(settings.get(StreamKeys.SNAPSHOT_TTL)),
              settings.meterRegistry(),
              // the stream connections this node dials share the node's frame budget (issue 24)
              new InboundLimits(
                  "stream connections this node dialed",
                  transportConfig,
                  loops.nodeFrameBudget(transportConfig)));
    } catch (IOException | RuntimeException e) {
      loops.close();
      throw e;
    }
    router =
        new OperationRouter(
            nodeId,
            serving,
            members,
            new RequestLimits(lsmConfig.maxKeySizeBytes(), lsmConfig.maxValueSizeBytes()),
            InvocationWindow.of(
                settings.get(ConsensusKeys.BOUNDED_DELAY),
                settings.get(ConsensusKeys.CLOCK_SKEW_BOUND)),
            metrics,
            new ClientConnections(transportConfig, loops, security),
            settings.forwardingTimeout(),
            stopped,
            diskSpace.gate());
    transports =
        NodeTransports.start(
            nodeId,
            loops,
            transportConfig,
            security,
            settings.peerAddress(),
            settings.clientAddress(),
            members,
            serving::receive,
            router::onClientRequest,
            new NodeAdmin(adminSite),
            settings.peerLinkFaults(),
            topology,
            streams.acceptor());
    clients = new EmbeddedClients(router, settings.createSettle().toNanos(), sessions);
    SecurityMeters.register(
        metrics, transports, streams.dialedLimits(), security, serving::unknownSenders);
  }

  /** Peer frames the transport refused (each closed its connection); 0 before it started. */
  long refusedPeerFrames() {
    NodeTransports t = transports;
    return t == null ? 0 : t.peers().refusedFrames();
  }

  /** Adds the steps that close the client side, from the client protocol server on. */
  StopSequence stopClientSide(StopSequence stop) {
    boolean bound = transports != null;
    return stop.thenIf(
            bound, "close the client protocol server", () -> transports.closeClientServer())
        .thenIf(router != null, "close forwarding connections", () -> router.closeForwarding());
  }

  /**
   * Adds the steps that close the network, the clients and the storage, after the core stopped. A
   * killed engine is abandoned (as if the process died), any other closed.
   */
  StopSequence stopAfterCore(StopSequence stop, boolean killEngine) {
    boolean bound = transports != null;
    return stop.thenIf(streams != null, "stop range streams", () -> streams.close())
        .thenIf(bound, "close the peer transport", () -> transports.closePeers())
        .thenIf(bound, "close the event loops", () -> transports.closeLoops())
        .thenIf(clients != null, "close embedded clients", () -> clients.closeAll())
        .thenIf(diskSpace != null, "stop the disk space guard", () -> diskSpace.close())
        .thenClose("close the meters", metrics)
        .thenIf(storage != null && !killEngine, "close the engine", () -> storage.close())
        .thenIf(storage != null && killEngine, "kill the engine", () -> storage.kill());
  }
}
