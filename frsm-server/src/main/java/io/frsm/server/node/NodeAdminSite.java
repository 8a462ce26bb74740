package io.frsm.server.node;

import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.QuarantinedInterval;
import io.frsm.lsm.ScrubStatus;
import io.frsm.server.admin.AdminSite;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.ring.NodeInfo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/** A node as its admin handler sees it: reads of the node's parts, each safe at any time. */
final class NodeAdminSite implements AdminSite {
  private final FrsmNode node;
  private final ClusterMembers members;
  private final Supplier<MembershipOrchestrator> orchestrator;

  NodeAdminSite(
      FrsmNode node, ClusterMembers members, Supplier<MembershipOrchestrator> orchestrator) {
    this.node = node;
    this.members = members;
    this.orchestrator = orchestrator;
  }

  @Override
  public io.frsm.server.membership.MembershipChange requestRepair() throws Exception {
    return node.requestRepair();
  }

  @Override
  public int nodeId() {
    return node.nodeId();
  }

  @Override
  public InetSocketAddress clientAddress() {
    return node.clientAddress();
  }

  @Override
  public long installedRingVersion() {
    return node.ringVersion();
  }

  @Override
  public boolean leadsRange(int range) {
    return node.leadsRange(range);
  }

  @Override
  public List<QuarantinedInterval> needsRepair() {
    return node.needsRepair();
  }

  @Override
  public ScrubStatus scrub() {
    LsmEngine engine = node.engine();
    return engine == null ? null : engine.scrubStatus();
  }

  @Override
  public CompletableFuture<Void> compact() {
    return node.compact();
  }

  @Override
  public Map<Integer, NodeInfo> registered() {
    return members.known();
  }

  @Override
  public MembershipOrchestrator orchestrator() {
    return orchestrator.get();
  }
}
