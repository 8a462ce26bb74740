package io.frsm.server.admin;

import io.frsm.lsm.QuarantinedInterval;
import io.frsm.lsm.ScrubStatus;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.ring.NodeInfo;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * What the admin handler reads and drives on its node. Every method may be called from the admin
 * thread at any time of the node's life, so each answers for a node that has not started serving
 * (or has stopped) rather than failing.
 */
public interface AdminSite {
  int nodeId();

  /** The bound client protocol address. */
  InetSocketAddress clientAddress();

  /** The ring version the node's cores run with; -1 before it serves. */
  long installedRingVersion();

  /** Whether the node holds the term of ring range {@code range} now. */
  boolean leadsRange(int range);

  /** The token intervals the node's storage quarantined; empty when healthy. */
  List<QuarantinedInterval> needsRepair();

  /** The background scrub's progress; null before the engine opened. */
  ScrubStatus scrub();

  /**
   * Forces a major compaction.
   *
   * @throws IllegalStateException if the node is not running
   */
  CompletableFuture<Void> compact();

  /**
   * Requests the repair of this node's quarantined storage now.
   *
   * @throws IllegalStateException if nothing is quarantined, another change runs, or the node does
   *     not serve
   * @throws IllegalArgumentException if the repair would leave a range below a quorum of voters
   */
  io.frsm.server.membership.MembershipChange requestRepair() throws Exception;

  /** Every node registered now, by id. */
  Map<Integer, NodeInfo> registered();

  /** The cluster's membership orchestrator; null until the node serves. */
  MembershipOrchestrator orchestrator();
}
