package io.frsm.server.node;

import io.frsm.consensus.core.CoreConfig;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.StreamKeys;
import io.frsm.server.membership.ChangeSettings;
import io.frsm.server.ring.Ring;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;

/**
 * What a node starts once its cluster formed, in this order: the cores over the newest ring
 * version, range leadership, the {@link ServingAgents}; then it marks itself ready and competes for
 * its ranges. The formation calls it with the cluster's shape and ring ({@link
 * ClusterFormation.RingListener}).
 */
final class ServingStart implements ClusterFormation.RingListener {
  private final FrsmNode node;
  private final NodeSettings settings;
  private final ZkLayout layout;
  private final LocalParts local;
  private final NodeMembership membership;
  private final Serving serving;
  private final ServingAgents agents;
  private final ClusterMembers members;
  private final NodeTopology topology;

  ServingStart(
      FrsmNode node,
      NodeSettings settings,
      ZkLayout layout,
      LocalParts local,
      NodeMembership membership,
      Serving serving,
      ServingAgents agents,
      ClusterMembers members,
      NodeTopology topology) {
    this.node = node;
    this.settings = settings;
    this.layout = layout;
    this.local = local;
    this.membership = membership;
    this.serving = serving;
    this.agents = agents;
    this.members = members;
    this.topology = topology;
  }

  /** The cluster formed with {@code ring}: runs the core over it, then takes range leadership. */
  @Override
  public void ringChanged(ClusterShape shape, Ring ring) throws Exception {
    int nodeId = settings.nodeId();
    RingHistory history = new RingHistory(membership.zooKeeper(), layout);
    RingVersion initial = RingVersion.initial(ring.placement());
    // The restart rule (docs/PROTOCOL.md "Membership changes"): the cores start at the newest
    // version, read after a sync, so never below one this node acknowledged before.
    RingVersion newest = history.newest(initial);
    CoreConfig config = settings.coreConfig(newest.placement());
    Serving.Site site =
        new Serving.Site(
            nodeId,
            local.storage,
            local.transports,
            local.metrics,
            settings.get(ConsensusKeys.CORE_THREADS),
            settings.get(ConsensusKeys.CORE_ON_TRANSPORT_LOOP),
            settings.get(ConsensusKeys.TICK_INTERVAL),
            settings.get(ConsensusKeys.LEASE),
            settings.get(ConsensusKeys.STEP_DOWN_AFTER),
            topology::changed,
            error ->
                membership.leaveForGood(
                    () -> {
                      serving.releaseLeadership();
                      settings.onFatalError().accept(error);
                    }),
            local.diskSpace.silence(),
            settings.handOffLimits(),
            new HandOffBaseRecords(
                settings.get(NodeKeys.DATA_DIRECTORY), settings.get(NodeKeys.CLUSTER_ID), nodeId));
    serving.start(
        config,
        shape,
        ring,
        site,
        membership.zooKeeper(),
        layout,
        members,
        membership::publishUnreachable,
        local.streams.handOffs());
    // Before the first view reaches leadership: compete only as a voter of the version the cores
    // run.
    serving.leadership().votersChanged(newest.placement());
    agents.start(
        node,
        nodeId,
        membership.zooKeeper(),
        layout,
        shape,
        history,
        initial,
        serving,
        members,
        topology,
        local.metrics,
        settings.get(StreamKeys.COPY_ON_JOIN) ? local.streams : RangeCopier.none(),
        new ChangeSettings(
            settings.get(NodeKeys.MEMBERSHIP_STEP_TIMEOUT),
            settings.get(NodeKeys.MEMBERSHIP_STEP_RANGES_PER_NODE)));
    // The commit log is replayed (the engine opened) and the core runs: take leadership.
    membership.markReady();
    membership.reportLeadershipViewTo(serving.leadership()::membersChanged);
    topology.changed(); // the view carries the ring from now on
  }
}
