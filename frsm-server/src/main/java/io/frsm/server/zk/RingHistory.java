package io.frsm.server.zk;

import io.frsm.consensus.core.RingTransition;
import io.frsm.consensus.core.UnsafeRingTransitionException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;

/**
 * The cluster's ring versions in ZooKeeper and which version each node installed (docs/PROTOCOL.md
 * "Membership changes", docs/FORMATS.md "ZooKeeper layout"). Version 0 is the shape's placement and
 * is not stored; versions 1, 2, ... are persistent znodes {@code ring/versions/<version>} created
 * once each (the create is the publish: two publishers of one version cannot both succeed).
 *
 * <p>Hostile bytes: every entry read is decoded strictly ({@link RingVersionCodec}) and must be a
 * safe step from the one before ({@link RingTransition#check} with the entry's retired ids, which
 * include every earlier retired id). The history a reader accepts ends before the first entry that
 * fails either: that entry and every later one are refused with an error log naming it, never
 * installed and never a crash; an operator removes the damaged entry (which was never installed, so
 * no node acted on it).
 *
 * <p>Thread-safe (stateless over a Curator client, but for the log of the last refusal).
 */
public final class RingHistory {
  private static final System.Logger LOG = System.getLogger(RingHistory.class.getName());

  /** An installed-version record: the version as a u64. */
  private static final int INSTALLED_BYTES = 8;

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private volatile String lastRefusal;

  /**
   * Entries read and accepted before, by version: a publisher creates each version once and an
   * operator removes only refused entries, so an accepted entry never changes and is fetched and
   * checked once (followers read the history every second, for as long as the cluster lives).
   */
  private final Map<Long, RingVersion> accepted = new java.util.concurrent.ConcurrentHashMap<>();

  public RingHistory(CuratorFramework zk, ZkLayout layout) {
    this.zk = zk;
    this.layout = layout;
  }

  /**
   * The accepted history from {@code initial} (version 0) on: {@code initial}, then each stored
   * version in order while each is readable and a safe step from its predecessor.
   *
   * @param watcher set on the versions' parent (fires once when a version is added), or null
   */
  public List<RingVersion> read(RingVersion initial, Watcher watcher) throws Exception {
    List<String> names;
    try {
      names =
          watcher == null
              ? zk.getChildren().forPath(layout.ringVersions())
              : zk.getChildren().usingWatcher(watcher).forPath(layout.ringVersions());
    } catch (KeeperException.NoNodeException none) {
      // Watch for its creation; created between the two calls, read again.
      if (watcher != null
          && zk.checkExists().usingWatcher(watcher).forPath(layout.ringVersions()) != null) {
        return read(initial, watcher);
      }
      return List.of(initial);
    }
    TreeMap<Long, String> byVersion = new TreeMap<>();
    for (String name : names) {
      long version = parseVersionName(name);
      if (version < 1) {
        refuse("ignored the znode " + layout.ringVersions() + "/" + name + ": not a ring version");
        continue;
      }
      byVersion.put(version, name);
    }
    List<RingVersion> acceptedNow = new ArrayList<>();
    acceptedNow.add(initial);
    RingVersion previous = initial;
    for (Map.Entry<Long, String> e : byVersion.entrySet()) {
      long expected = previous.version() + 1;
      if (e.getKey() != expected) {
        refuse(
            "ring version "
                + e.getKey()
                + " is stored but version "
                + expected
                + " is missing; the history ends at "
                + previous.version());
        break;
      }
      RingVersion next = accepted.get(e.getKey());
      if (next != null) {
        // Checked when first read, after the same chain (versions 1.. are accepted in order).
        previous = next;
        acceptedNow.add(next);
        continue;
      }
      try {
        next =
            RingVersionCodec.decode(
                zk.getData().forPath(layout.ringVersions() + "/" + e.getValue()));
        if (next.version() != e.getKey()) {
          throw new IllegalArgumentException(
              "the entry names version " + next.version() + " under the name " + e.getValue());
        }
        checkStep(previous, next);
      } catch (KeeperException.NoNodeException removed) {
        break; // an operator removed it meanwhile: the history ends here
      } catch (IllegalArgumentException refused) { // malformed, or an unsafe step
        refuse(
            "refused ring version "
                + e.getKey()
                + " at "
                + layout.ringVersion(e.getKey())
                + " and every later one: "
                + refused.getMessage());
        break;
      }
      acceptedNow.add(next);
      accepted.put(next.version(), next);
      previous = next;
    }
    return List.copyOf(acceptedNow);
  }

  /** The newest accepted version (see {@link #read}), after a sync with the ensemble's leader. */
  public RingVersion newest(RingVersion initial) throws Exception {
    sync();
    List<RingVersion> all = read(initial, null);
    return all.get(all.size() - 1);
  }

  /**
   * Publishes {@code next} after {@code previous}, the newest version: false if a version {@code
   * next.version()} is stored already (another publisher won).
   *
   * @throws UnsafeRingTransitionException if {@code next} is no safe step from {@code previous}
   */
  public boolean publish(RingVersion previous, RingVersion next) throws Exception {
    checkStep(previous, next);
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.ringVersion(next.version()), RingVersionCodec.encode(next));
      return true;
    } catch (KeeperException.NodeExistsException raced) {
      return false;
    }
  }

  /**
   * The rules every stored step obeys: {@link RingTransition#check} with the new entry's retired
   * ids, and retired ids are never forgotten.
   */
  public static RingTransition checkStep(RingVersion previous, RingVersion next) {
    if (!next.retired().containsAll(previous.retired())) {
      throw new UnsafeRingTransitionException(
          "ring version "
              + next.version()
              + " forgets retired nodes "
              + previous.retired()
              + " (it retires "
              + next.retired()
              + "): a retired id is retired forever");
    }
    return RingTransition.check(previous.placement(), next.placement(), next.retired());
  }

  /**
   * Records that {@code nodeId} installed {@code version}: the record only moves up (a conditional
   * write; a lower version than recorded changes nothing). REQUIRES: the node's cores run with that
   * version or a newer one.
   */
  public void acknowledge(int nodeId, long version) throws Exception {
    String path = layout.ringInstalled(nodeId);
    byte[] data = ByteBuffer.allocate(INSTALLED_BYTES).putLong(version).array();
    while (true) {
      Stat stat = new Stat();
      byte[] current;
      try {
        current = zk.getData().storingStatIn(stat).forPath(path);
      } catch (KeeperException.NoNodeException absent) {
        try {
          zk.create().creatingParentContainersIfNeeded().forPath(path, data);
          return;
        } catch (KeeperException.NodeExistsException raced) {
          continue;
        }
      }
      long recorded = installedVersion(current);
      if (recorded >= version) {
        return;
      }
      try {
        zk.setData().withVersion(stat.getVersion()).forPath(path, data);
        return;
      } catch (KeeperException.BadVersionException raced) {
        // Another incarnation of this node wrote meanwhile: read again.
      }
    }
  }

  /**
   * The newest version each node recorded installed. A record that is not 8 bytes of a non-negative
   * version is skipped with a log (the node counts as having installed nothing).
   */
  public Map<Integer, Long> installed() throws Exception {
    Map<Integer, Long> result = new TreeMap<>();
    List<String> nodes;
    try {
      nodes = zk.getChildren().forPath(layout.ringInstalled());
    } catch (KeeperException.NoNodeException none) {
      return result;
    }
    for (String name : nodes) {
      int node;
      try {
        node = Integer.parseInt(name);
      } catch (NumberFormatException e) {
        refuse("ignored " + layout.ringInstalled() + "/" + name + ": not a node id");
        continue;
      }
      try {
        long version = installedVersion(zk.getData().forPath(layout.ringInstalled(node)));
        if (version >= 0) {
          result.put(node, version);
        }
      } catch (KeeperException.NoNodeException removed) {
        // Removed meanwhile: nothing installed.
      } catch (IllegalArgumentException | IllegalStateException bad) {
        refuse("ignored node " + node + "'s installed-version record: " + bad.getMessage());
      }
    }
    return result;
  }

  /** Nodes whose record names {@code version} or a newer one. */
  public Set<Integer> installedAtLeast(long version) throws Exception {
    Set<Integer> nodes = new java.util.TreeSet<>();
    installed()
        .forEach(
            (node, v) -> {
              if (v >= version) {
                nodes.add(node);
              }
            });
    return nodes;
  }

  private static long installedVersion(byte[] data) {
    if (data == null || data.length != INSTALLED_BYTES) {
      throw new IllegalArgumentException(
          "an installed-version record is 8 bytes, was " + (data == null ? "absent" : data.length));
    }
    long v = ByteBuffer.wrap(data).getLong();
    if (v < 0) {
      throw new IllegalArgumentException("negative ring version " + v);
    }
    return v;
  }

  /** The version a child of {@code ring/versions} names, or -1 if it names none. */
  static long parseVersionName(String name) {
    if (name.length() != 19 || !name.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return -1;
    }
    return Long.parseLong(name);
  }

  /**
   * Waits until this client's server caught up with the ensemble's leader: a read after it sees
   * every write acknowledged before (the restart rule reads its own earlier acknowledgements).
   */
  public void sync() throws Exception {
    CompletableFuture<Void> done = new CompletableFuture<>();
    zk.sync().inBackground((client, event) -> done.complete(null)).forPath(layout.root());
    done.get(zk.getZookeeperClient().getConnectionTimeoutMs() + 30_000L, TimeUnit.MILLISECONDS);
  }

  /** Logs {@code message} at error once (again only when it changes: watches re-read often). */
  private void refuse(String message) {
    if (!message.equals(lastRefusal)) {
      lastRefusal = message;
      LOG.log(Level.ERROR, message);
    }
  }
}
