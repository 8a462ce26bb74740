package io.frsm.server.multiprocess;

import io.frsm.cell.Key;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeTermStore;
import io.frsm.server.zk.ZkLayout;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;

/**
 * What the multi-process tests read of a cluster in ZooKeeper, through a read-only session: who is
 * live, which node holds a key's range term, and which node leads a key as thin clients route it.
 */
final class ClusterView {
  private final CuratorFramework zk;
  private final MembershipRegistry registry;
  private final ZkLayout layout;

  ClusterView(CuratorFramework zk, MembershipRegistry registry, String clusterId) {
    this.zk = zk;
    this.registry = registry;
    this.layout = new ZkLayout(clusterId);
  }

  /**
   * The node that holds {@code key}'s range term, if live; else the first live replica in ring
   * order, as thin clients route it.
   */
  int leader(byte[] key) throws Exception {
    long[] t = term(key);
    if (t[0] > 0 && live().contains((int) t[1])) {
      return (int) t[1];
    }
    return natural(key);
  }

  /** The first live replica of {@code key}'s range in ring order: its preferred leader. */
  int natural(byte[] key) throws Exception {
    ClusterMembers view = new ClusterMembers();
    view.update(registry.members());
    view.shape(ClusterShape.read(zk, layout));
    return view.route(Key.of(key)).get(0);
  }

  /** {@code key}'s range term and its holder in ZooKeeper ({0, -1} before any). */
  long[] term(byte[] key) {
    try {
      int range = ClusterShape.read(zk, layout).ring().rangeIndexOf(Key.of(key).token());
      return new RangeTermStore(zk, layout, System::nanoTime)
          .current(ZkLayout.rangeId(range))
          .orElse(new long[] {0, -1});
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The ids of the registered nodes (empty while ZooKeeper does not answer). */
  Set<Integer> live() {
    try {
      return registry.members().stream().map(NodeInfo::nodeId).collect(Collectors.toSet());
    } catch (Exception e) {
      return Set.of();
    }
  }
}
