package io.frsm.server.node;

import io.frsm.server.client.ClusterMembers;
import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.ZooKeeperKeys;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperCredential;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * A node's way into its cluster, after its {@link LocalParts} started: connects to ZooKeeper
 * ({@link NodeMembership}), checks the stored shape ({@link ClusterFormation}: it refuses a node it
 * does not describe), registers, watches the members, and forms the cluster once enough registered
 * ({@link ServingStart} then runs). Each part is set as soon as it exists, so a stop closes what
 * started even if a later step failed.
 */
final class ClusterJoin {
  private NodeMembership membership;
  private volatile ClusterFormation formation; // read by awaitReady on any thread

  /** Connects, registers (unless the stored shape refuses this node) and watches. */
  void start(
      FrsmNode node,
      NodeSettings settings,
      ZkLayout layout,
      LocalParts local,
      Serving serving,
      ServingAgents agents,
      ClusterMembers members,
      NodeTopology topology,
      BooleanSupplier stopped)
      throws Exception {
    int nodeId = settings.nodeId();
    membership =
        new NodeMembership(
            nodeId,
            settings.get(ZooKeeperKeys.CONNECT),
            settings.get(ZooKeeperKeys.SESSION_TIMEOUT),
            credential(settings, ZooKeeperKeys.CREDENTIAL_FILE),
            credential(settings, ZooKeeperKeys.READER_CREDENTIAL_FILE),
            ZooKeeperKeys.tls(settings.config()),
            settings.get(NodeKeys.DATA_DIRECTORY),
            layout,
            members,
            serving::coreServing,
            stopped,
            id -> local.transports.peers().redial(id));
    membership.connect();
    formation =
        new ClusterFormation(
            nodeId,
            settings.get(NodeKeys.CLUSTER_ID),
            settings.get(NodeKeys.INITIAL_NODES),
            settings.get(RingKeys.VNODES),
            settings.get(RingKeys.REPLICATION_FACTOR),
            settings.get(NodeKeys.JOIN),
            settings.timing(),
            membership,
            layout,
            members,
            new ServingStart(
                node, settings, layout, local, membership, serving, agents, members, topology));
    formation.checkStoredShape();
    membership.register(
        new NodeInfo(
            nodeId,
            settings.advertisedHost(),
            local.transports.peerAddress().getPort(),
            local.transports.clientAddress().getPort(),
            settings.get(NodeKeys.RACK)));
    membership.watch(
        () -> {
          formation.tryForm();
          local.router.membersChanged();
          topology.changed();
        });
    formation.tryForm();
  }

  /** The ZooKeeper identity in the file {@code key} names, or null when it names none. */
  private static ZooKeeperCredential credential(NodeSettings settings, ConfigKey<Path> key) {
    Path file = settings.get(key);
    return file == null ? null : ZooKeeperCredential.read(file);
  }

  /** The membership once {@link #start} created it, else null. */
  NodeMembership membership() {
    return membership;
  }

  /** The formation once {@link #start} created it, else null. */
  ClusterFormation formation() {
    return formation;
  }

  /** Adds the steps that stop the ZooKeeper chores and the session watch. */
  StopSequence stopWatching(StopSequence stop) {
    boolean joined = membership != null;
    return stop.thenIf(joined, "stop ZooKeeper chores", () -> membership.stopChores())
        .thenIf(joined, "stop watching the session", () -> membership.stopWatchingSession());
  }

  /** Adds the steps that leave ZooKeeper: deregister (graceful stops only), close the session. */
  StopSequence leave(StopSequence stop, boolean graceful) {
    boolean joined = membership != null;
    return stop.thenIf(joined && graceful, "deregister", () -> membership.deregister())
        .thenIf(joined, "close the member registry", () -> membership.closeRegistry())
        .thenIf(joined, "close the ZooKeeper session", () -> membership.closeZooKeeper());
  }
}
