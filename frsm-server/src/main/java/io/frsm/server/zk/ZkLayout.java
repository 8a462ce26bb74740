package io.frsm.server.zk;

/**
 * Where a cluster keeps its state in ZooKeeper. Everything lives under {@code /frsm/<clusterId>},
 * so several clusters can share one ensemble.
 *
 * <pre>
 *   /frsm/&lt;cluster&gt;/members/&lt;nodeId&gt;            ephemeral; NodeInfo
 *   /frsm/&lt;cluster&gt;/shape                       persistent; the replica set and vnodes (ClusterShape)
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/term        term (u64) and holder node id (u32)
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/leasegen    its version is the lease generation
 *   /frsm/&lt;cluster&gt;/ranges/&lt;rangeId&gt;/latch       Curator LeaderLatch of the range
 * </pre>
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

  /** The cluster's replica set and vnode count, written once when the cluster first forms. */
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
}
