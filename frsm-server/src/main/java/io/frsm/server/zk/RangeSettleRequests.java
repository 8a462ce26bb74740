package io.frsm.server.zk;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;

/**
 * Settles of a range at a ring version, asked through ZooKeeper of whichever node holds the range
 * (docs/PROTOCOL.md "Membership changes": with leases on only the holder can prepare, so only it
 * can settle). The orchestrator creates {@code ring/settles/<version>-<range>} empty once a quorum
 * of the version's voters installed it; the node holding the range then runs the settle on its core
 * and, when the core answers settled, writes its node id (u32) into the znode. A holder that
 * changes meanwhile, or a settle the core abandoned, leaves the request open for the next holder or
 * the next try. The znode outlives the orchestrator, so a resumed change sees what was settled.
 *
 * <p>Hostile bytes: a request name that is not {@code <19 digits>-<range>} is ignored; an answer
 * that is not 4 bytes of a node id counts as no answer (the settle is asked again: settling twice
 * is harmless). Thread-safe (stateless over a Curator client).
 */
public final class RangeSettleRequests {
  /** An open or answered request. {@code settledBy} is -1 while open. */
  public record Request(long version, int range, int settledBy) {
    public boolean settled() {
      return settledBy >= 0;
    }
  }

  private final CuratorFramework zk;
  private final ZkLayout layout;

  public RangeSettleRequests(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /** Asks for range {@code range} to be settled at {@code version} (no change if asked before). */
  public void ask(long version, int range) throws Exception {
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.ringSettle(version, range), new byte[0]);
    } catch (KeeperException.NodeExistsException asked) {
      // Asked before (a resumed change): its answer, if any, stands.
    }
  }

  /** Records that {@code nodeId}'s core settled the range at the version. */
  public void answer(long version, int range, int nodeId) throws Exception {
    try {
      zk.setData()
          .forPath(
              layout.ringSettle(version, range), ByteBuffer.allocate(4).putInt(nodeId).array());
    } catch (KeeperException.NoNodeException withdrawn) {
      // The request was removed (a cancelled change): nobody waits for the answer.
    }
  }

  /** The request's state, or null if it was never asked; sets {@code watcher} if not null. */
  public Request get(long version, int range, Watcher watcher) throws Exception {
    try {
      byte[] data =
          watcher == null
              ? zk.getData().forPath(layout.ringSettle(version, range))
              : zk.getData().usingWatcher(watcher).forPath(layout.ringSettle(version, range));
      return new Request(version, range, settledBy(data));
    } catch (KeeperException.NoNodeException never) {
      return null;
    }
  }

  /**
   * Every request of {@code version}, open or answered.
   *
   * @param watcher set on the requests' parent (fires once when one is added), or null
   */
  public List<Request> all(long version, Watcher watcher) throws Exception {
    List<String> names;
    try {
      names =
          watcher == null
              ? zk.getChildren().forPath(layout.ringSettles())
              : zk.getChildren().usingWatcher(watcher).forPath(layout.ringSettles());
    } catch (KeeperException.NoNodeException none) {
      if (watcher != null
          && zk.checkExists().usingWatcher(watcher).forPath(layout.ringSettles()) != null) {
        return all(version, watcher);
      }
      return List.of();
    }
    List<Request> result = new ArrayList<>();
    String prefix = ZkLayout.versionName(version) + "-";
    for (String name : names) {
      if (!name.startsWith(prefix)) {
        continue;
      }
      int range = parseRange(name.substring(prefix.length()));
      if (range < 0) {
        continue;
      }
      Request r = get(version, range, null);
      if (r != null) {
        result.add(r);
      }
    }
    return result;
  }

  static int parseRange(String text) {
    if (text.isEmpty() || text.length() > 9 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    return Integer.parseInt(text);
  }

  /** The node id an answer names, or -1 for none (empty, or not 4 bytes of an id >= 0). */
  static int settledBy(byte[] data) {
    if (data == null || data.length != 4) {
      return -1;
    }
    int node = ByteBuffer.wrap(data).getInt();
    return node >= 0 ? node : -1;
  }
}
