package io.frsm.server.membership;

import io.frsm.consensus.core.Placement;
import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * Whether a repair leaves each of its ranges enough healthy voters, from the other nodes'
 * quarantine records ({@code membership/quarantined/<node>}). Stateless over a Curator client.
 */
final class RepairHealth {
  private static final System.Logger LOG = System.getLogger(RepairHealth.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;

  RepairHealth(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /**
   * Refuses a repair that leaves a range with fewer than a quorum of healthy voters: the others'
   * quarantines touching it ({@link ZkLayout#membershipQuarantined}) make them silent for some of
   * its keys, so the range could not settle or commit those while this node is a learner. A record
   * that does not parse counts its node as unhealthy in every range (never the unsafe side).
   */
  void refuseUnhealthy(int node, List<Integer> ranges, Placement p) throws Exception {
    Map<Integer, Set<Integer>> quarantined = new java.util.HashMap<>();
    for (int r : ranges) {
      List<Integer> voters = p.replicas(r);
      List<Integer> unhealthy = new ArrayList<>();
      for (int v : voters) {
        if (v == node) {
          continue;
        }
        Set<Integer> touched = quarantined.computeIfAbsent(v, this::quarantinedRangesOf);
        if (touched == null || touched.contains(r)) {
          unhealthy.add(v);
        }
      }
      int healthy = voters.size() - 1 - unhealthy.size();
      int quorum = io.frsm.consensus.core.CoreConfig.quorum(voters.size());
      if (healthy < quorum) {
        throw new IllegalArgumentException(
            "repairing node "
                + node
                + " would leave range "
                + r
                + " with "
                + healthy
                + " healthy voters, fewer than a quorum ("
                + quorum
                + ") of "
                + voters
                + ": voters "
                + unhealthy
                + " are quarantined there too and answer nothing for the damaged keys;"
                + " repair waits (replace a node whose disk is lost)");
      }
    }
  }

  /** The ranges {@code node}'s quarantine touches; empty if none; null if its record is bad. */
  private Set<Integer> quarantinedRangesOf(int node) {
    try {
      byte[] data = zk.getData().forPath(layout.membershipQuarantined(node));
      if (data.length > MembershipChange.MAX_BYTES) {
        return null;
      }
      Set<Integer> ranges = new TreeSet<>();
      String text = new String(data, StandardCharsets.UTF_8);
      for (String r : text.isEmpty() ? new String[0] : text.split(",", -1)) {
        ranges.add(Integer.parseInt(r));
      }
      return ranges;
    } catch (KeeperException.NoNodeException healthy) {
      return Set.of();
    } catch (Exception unreadable) {
      LOG.log(Level.WARNING, "node {0}''s quarantine record is unreadable: {1}", node, unreadable);
      return null;
    }
  }
}
