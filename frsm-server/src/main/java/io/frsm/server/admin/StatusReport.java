package io.frsm.server.admin;

import io.frsm.client.proto.ClusterStatus;
import io.frsm.client.proto.NodeStatus;
import io.frsm.consensus.core.Placement;
import io.frsm.lsm.QuarantinedInterval;
import io.frsm.lsm.ScrubStatus;
import io.frsm.server.membership.MembershipChange;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.RingVersion;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** Builds a node's answer to {@code frsm admin status}: itself, and the cluster as it reads it. */
final class StatusReport {
  static final String MEMBER = "member";
  static final String JOINING = "joining candidate";
  static final String RETIRED = "retired";
  static final String NOT_SERVING = "not serving";

  private StatusReport() {}

  static ClusterStatus of(AdminSite site) throws Exception {
    MembershipOrchestrator orchestrator = site.orchestrator();
    ClusterStatus.Builder status = ClusterStatus.newBuilder();
    if (orchestrator == null) {
      // Not serving yet (a joining node waits here until it is added): only what it knows itself.
      return status.setSelf(self(site, null)).build();
    }
    RingVersion newest = orchestrator.newest();
    Placement placement = newest.placement();
    status.setSelf(self(site, newest)).setNewestRingVersion(newest.version());
    for (Map.Entry<Integer, Long> e : new TreeMap<>(orchestrator.installed()).entrySet()) {
      status.addInstalled(
          ClusterStatus.InstalledVersion.newBuilder()
              .setNodeId(e.getKey())
              .setVersion(Math.max(0, e.getValue())));
    }
    MembershipChange pending = orchestrator.pending();
    if (pending != null) {
      int by = orchestrator.orchestratingNode();
      status.setMembershipChange(
          pending
              + (by < 0 ? ", waiting for an orchestrator" : ", orchestrated by node " + by)
              + orchestrator.stepProgress(pending)
              + orchestrator.copyProgress(pending));
    }
    for (int r = 0; r < placement.rangeCount(); r++) {
      status.addRanges(
          ClusterStatus.RingRange.newBuilder()
              .setStartTokenExclusive(placement.startTokenExclusive(r))
              .setEndToken(placement.endToken(r))
              .addAllVoters(placement.replicas(r))
              .addAllLearners(placement.learners(r)));
    }
    Map<Integer, NodeInfo> registered = site.registered();
    TreeSet<Integer> ids = new TreeSet<>(registered.keySet());
    ids.addAll(placement.nodes());
    for (int id : ids) {
      ClusterStatus.KnownNode.Builder known = ClusterStatus.KnownNode.newBuilder().setNodeId(id);
      NodeInfo info = registered.get(id);
      if (info != null) {
        known.setHost(info.host()).setClientPort(info.clientPort());
      }
      status.addNodes(known);
    }
    status.addAllRetired(new TreeSet<>(newest.retired()));
    return status.build();
  }

  private static NodeStatus self(AdminSite site, RingVersion newest) {
    int id = site.nodeId();
    NodeStatus.Builder self =
        NodeStatus.newBuilder()
            .setNodeId(id)
            .setAddress(site.clientAddress().getHostString() + ":" + site.clientAddress().getPort())
            .setInstalledRingVersion(site.installedRingVersion());
    if (newest == null) {
      self.setState(NOT_SERVING);
    } else if (newest.retired().contains(id)) {
      self.setState(RETIRED);
    } else if (newest.placement().nodes().contains(id)) {
      self.setState(MEMBER);
    } else {
      self.setState(JOINING);
    }
    if (newest != null) {
      for (int r = 0; r < newest.placement().rangeCount(); r++) {
        if (site.leadsRange(r)) {
          self.addRangesLed(r);
        }
      }
    }
    for (QuarantinedInterval q : site.needsRepair()) {
      self.addQuarantined(
          "table " + q.generation() + " " + (q.wholeTable() ? "(whole) " : "") + q.tokens());
    }
    ScrubStatus scrub = site.scrub();
    self.setScrub(scrub == null ? "" : scrub(scrub));
    return self.build();
  }

  private static String scrub(ScrubStatus s) {
    if (!s.enabled()) {
      return "off";
    }
    return s.passesCompleted()
        + " passes, at table "
        + s.generation()
        + " block "
        + s.nextBlock()
        + ", "
        + s.corruptBlocksFound()
        + " corrupt blocks";
  }
}
