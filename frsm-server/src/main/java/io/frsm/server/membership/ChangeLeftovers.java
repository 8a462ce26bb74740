package io.frsm.server.membership;

import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * Removes the settle ({@code ring/settles}) and copy ({@code ring/copies}) requests of finished
 * changes, so ZooKeeper does not grow with every change (docs/FORMATS.md "ZooKeeper layout"). A
 * request of ring version {@code v} is only read while the change that published {@code v} runs
 * (its orchestrator, the holders settling, the learners copying, a repaired node checking its
 * settles), so once no change is stored every request of a version up to the newest is garbage; a
 * request of a newer version (none is ever asked before its version is published) is left alone.
 *
 * <p>Names that are not a request's are left alone too (logged): they are not ours to remove.
 * Thread-safe (stateless over a Curator client).
 */
final class ChangeLeftovers {
  private static final System.Logger LOG = System.getLogger(ChangeLeftovers.class.getName());

  private final CuratorFramework zk;
  private final ZkLayout layout;

  ChangeLeftovers(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /**
   * Removes every settle and copy request of ring versions {@code <= upTo}. REQUIRES: no change
   * that published one of those versions is still stored (the orchestrator lock is held).
   *
   * @return how many znodes were removed
   */
  int removeUpTo(long upTo) throws Exception {
    return remove(layout.ringSettles(), upTo) + remove(layout.ringCopies(), upTo);
  }

  private int remove(String parent, long upTo) throws Exception {
    List<String> names;
    try {
      names = zk.getChildren().forPath(parent);
    } catch (KeeperException.NoNodeException none) {
      return 0;
    }
    int removed = 0;
    for (String name : names) {
      long version = versionOf(name);
      if (version < 0) {
        LOG.log(Level.WARNING, "left {0}/{1} alone: not a request''s name", parent, name);
        continue;
      }
      if (version > upTo) {
        continue;
      }
      try {
        zk.delete().forPath(parent + "/" + name);
        removed++;
      } catch (KeeperException.NoNodeException gone) {
        // Removed meanwhile.
      }
    }
    return removed;
  }

  /** The ring version a request's name starts with ({@code <19 digits>-...}), or -1. */
  static long versionOf(String name) {
    if (name.length() < 21 || name.charAt(19) != '-') {
      return -1;
    }
    for (int i = 0; i < 19; i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    try {
      return Long.parseLong(name.substring(0, 19));
    } catch (NumberFormatException tooLarge) {
      return -1;
    }
  }
}
