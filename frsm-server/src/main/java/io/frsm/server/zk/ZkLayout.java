package io.frsm.server.zk;

/**
 * Where a cluster keeps its state in ZooKeeper. Everything lives under {@code /frsm/<clusterId>},
 * so several clusters can share one ensemble.
 *
 * <pre>
 *   /frsm/&lt;cluster&gt;/members/&lt;nodeId&gt;            ephemeral; NodeInfo
 *   /frsm/&lt;cluster&gt;/ready/&lt;nodeId&gt;              ephemeral; the node replayed its log and serves
 *   /frsm/&lt;cluster&gt;/shape                       persistent; nodes, racks, vnodes, RF, T, ε
 *                                               (ClusterShape)
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/term        term (u64) and holder node id (u32): the leader
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/leasegen    its version is the lease generation; data:
 *                                               the bump's term and holder, or after a release
 *                                               on purpose those plus a release flag (13 bytes)
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/latch       the range's election (RangeLatch; the
 *                                               znode layout of Curator's LeaderLatch)
 *   /frsm/&lt;cluster&gt;/ring/versions/&lt;version&gt;     persistent; ring versions 1, 2, ... (version 0
 *                                               is the shape's placement; RingHistory)
 *   /frsm/&lt;cluster&gt;/ring/installed/&lt;nodeId&gt;     persistent; the newest version the node installed
 *   /frsm/&lt;cluster&gt;/ring/settles/&lt;version&gt;-&lt;range&gt;  persistent; a settle asked of the range's
 *                                               holder, and its answer
 *   /frsm/&lt;cluster&gt;/ring/tokens/&lt;nodeId&gt;        persistent; the id whose vnode tokens a replacement
 *                                               node owns (u32)
 *   /frsm/&lt;cluster&gt;/membership/change         persistent; the change in progress
 *   /frsm/&lt;cluster&gt;/membership/lock           the orchestrator's lock (Curator's mutex layout)
 *   /frsm/&lt;cluster&gt;/membership/orchestrator   ephemeral; the node id running the change
 * </pre>
 *
 * A range's id is its index on the ring ({@link io.frsm.server.ring.Ring#rangeIndexOf}) in decimal:
 * the ring is fixed with the cluster's shape, so the index is too.
 */
public final class ZkLayout {
  private final String root;

  public ZkLayout(String clusterId) {
    if (clusterId == null || !clusterId.matches("[A-Za-z0-9_.-]{1,64}")) {
      throw new IllegalArgumentException(
          "cluster id must be 1-64 characters of [A-Za-z0-9_.-], was " + clusterId);
    }
    this.root = "/frsm/" + clusterId;
  }

  public String root() {
    return root;
  }

  public String members() {
    return root + "/members";
  }

  public String member(int nodeId) {
    return members() + "/" + nodeId;
  }

  /** Ready markers: a node's is present while it serves (its core runs, its log is replayed). */
  public String ready() {
    return root + "/ready";
  }

  public String ready(int nodeId) {
    return ready() + "/" + nodeId;
  }

  /** All ranges' term, lease generation and latch znodes live below this path. */
  public String ranges() {
    return root + "/ranges";
  }

  /** The id of ring range {@code rangeIndex} under {@link #ranges()}. */
  public static String rangeId(int rangeIndex) {
    if (rangeIndex < 0) {
      throw new IllegalArgumentException("range index must be >= 0, was " + rangeIndex);
    }
    return Integer.toString(rangeIndex);
  }

  /** The cluster's {@link ClusterShape}, written once when the cluster first forms. */
  public String shape() {
    return root + "/shape";
  }

  public String range(String rangeId) {
    if (!rangeId.matches("[A-Za-z0-9_-]{1,64}")) {
      throw new IllegalArgumentException("bad range id " + rangeId);
    }
    return root + "/ranges/" + rangeId;
  }

  public String term(String rangeId) {
    return range(rangeId) + "/term";
  }

  public String leaseGeneration(String rangeId) {
    return range(rangeId) + "/leasegen";
  }

  public String latch(String rangeId) {
    return range(rangeId) + "/latch";
  }

  /** The ring history: versions, installations, settles (docs/FORMATS.md "ZooKeeper layout"). */
  public String ring() {
    return root + "/ring";
  }

  public String ringVersions() {
    return ring() + "/versions";
  }

  /** Ring version {@code version}'s entry: 19 decimal digits, so names sort as numbers. */
  public String ringVersion(long version) {
    return ringVersions() + "/" + versionName(version);
  }

  public String ringInstalled() {
    return ring() + "/installed";
  }

  public String ringInstalled(int nodeId) {
    return ringInstalled() + "/" + nodeId;
  }

  public String ringSettles() {
    return ring() + "/settles";
  }

  public String ringSettle(long version, int range) {
    return ringSettles() + "/" + versionName(version) + "-" + rangeId(range);
  }

  /**
   * Bulk copies of ranges to their incoming learners ({@code RangeCopyRequests}): {@code
   * <version>-<node>-<range>}.
   */
  public String ringCopies() {
    return ring() + "/copies";
  }

  public String ringCopy(long version, int nodeId, int range) {
    if (nodeId < 0) {
      throw new IllegalArgumentException("node id must be >= 0, was " + nodeId);
    }
    return ringCopies() + "/" + versionName(version) + "-" + nodeId + "-" + rangeId(range);
  }

  /** An operator's cancel of the stored change (its {@code MembershipChange} bytes). */
  public String membershipCancel() {
    return root + "/membership/cancel";
  }

  static String versionName(long version) {
    if (version < 0) {
      throw new IllegalArgumentException("ring version must be >= 0, was " + version);
    }
    return String.format("%019d", version);
  }

  /** The membership change in progress, if any ({@code MembershipChange}). */
  public String membershipChange() {
    return root + "/membership/change";
  }

  /** The lock the orchestrator of a membership change holds (one at a time per cluster). */
  public String membershipLock() {
    return root + "/membership/lock";
  }

  /** Ephemeral: the node id of the orchestrator running the change now. */
  public String membershipOrchestrator() {
    return root + "/membership/orchestrator";
  }

  /**
   * A repaired node's word that it released its quarantine at the learner version of its repair
   * (UTF-8 decimal version; {@code MembershipOrchestrator} waits for it before the node is a voter
   * again).
   */
  public String membershipRepaired(int nodeId) {
    return root + "/membership/repaired/" + nodeId;
  }

  /**
   * Ephemeral, while a node's storage is quarantined: the ranges (UTF-8 decimals, comma-separated)
   * its quarantine touches. A repair of another node that would leave one of these ranges with
   * fewer than a quorum of healthy voters is refused.
   */
  public String membershipQuarantined(int nodeId) {
    return root + "/membership/quarantined/" + nodeId;
  }

  /**
   * Which vnode tokens a replacement node owns: its dead predecessor's ({@code MembershipPlan}).
   */
  public String ringTokens() {
    return ring() + "/tokens";
  }

  public String ringTokens(int nodeId) {
    return ringTokens() + "/" + nodeId;
  }
}
