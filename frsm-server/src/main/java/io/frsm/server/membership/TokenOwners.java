package io.frsm.server.membership;

import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * The {@code ring/tokens/<node>} records (docs/FORMATS.md "ZooKeeper layout"): which other id's
 * vnode tokens a replacement node owns, written when a replace finishes, read by every later plan.
 *
 * <p>Thread-safety: stateless over a Curator client.
 */
final class TokenOwners {
  private static final System.Logger LOG = System.getLogger(TokenOwners.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;

  TokenOwners(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /** Records that {@code node} owns the tokens of id {@code tokenId} (again, if resumed). */
  void record(int node, int tokenId) throws Exception {
    byte[] data = ByteBuffer.allocate(4).putInt(tokenId).array();
    try {
      zk.create().creatingParentContainersIfNeeded().forPath(layout.ringTokens(node), data);
    } catch (KeeperException.NodeExistsException resumed) {
      zk.setData().forPath(layout.ringTokens(node), data);
    }
  }

  /**
   * Which node owns which other id's vnode tokens. A record that is not 4 bytes of an id >= 0 is
   * skipped with a log (that node then places by its own tokens, which a plan may refuse as too
   * large a step: never unsafe).
   */
  Map<Integer, Integer> owners() throws Exception {
    Map<Integer, Integer> owners = new TreeMap<>();
    List<String> names;
    try {
      names = zk.getChildren().forPath(layout.ringTokens());
    } catch (KeeperException.NoNodeException none) {
      return owners;
    }
    for (String name : names) {
      try {
        int node = Integer.parseInt(name);
        byte[] data = zk.getData().forPath(layout.ringTokens(node));
        if (data.length != 4 || ByteBuffer.wrap(data).getInt() < 0 || node < 0) {
          throw new IllegalArgumentException("not 4 bytes of a node id");
        }
        owners.put(node, ByteBuffer.wrap(data).getInt());
      } catch (KeeperException.NoNodeException removed) {
        // Gone meanwhile.
      } catch (IllegalArgumentException bad) {
        LOG.log(
            Level.ERROR,
            "ignored the token record "
                + layout.ringTokens()
                + "/"
                + name
                + ": "
                + bad.getMessage());
      }
    }
    return owners;
  }
}
