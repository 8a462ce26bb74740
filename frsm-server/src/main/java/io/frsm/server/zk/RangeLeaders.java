package io.frsm.server.zk;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

/**
 * Who leads each range, as far as ZooKeeper tells: a watched cache of the ranges' term znodes,
 * whose data names the node that bumped the term last ({@link RangeTermStore#bumpTerm}). Advisory,
 * for routing only: the named node may have died or stepped down since (its term znode stays until
 * a successor bumps it), so callers check it against the live members; safety never depends on it.
 *
 * <p>Thread-safe; reads never touch ZooKeeper.
 */
public final class RangeLeaders implements AutoCloseable {
  private final String rangesPath;
  private final CuratorCache cache;
  private final Map<Integer, Integer> holders = new ConcurrentHashMap<>();
  private final Runnable changed;

  private RangeLeaders(CuratorFramework zk, ZkLayout layout, Runnable changed) throws Exception {
    this.rangesPath = layout.ranges() + "/";
    this.changed = changed;
    zk.createContainers(layout.ranges());
    this.cache = CuratorCache.build(zk, layout.ranges());
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forCreatesAndChanges((oldData, data) -> apply(data))
                .forDeletes(this::forget)
                .build());
  }

  /** Starts watching the cluster's range terms. */
  public static RangeLeaders watch(CuratorFramework zk, ZkLayout layout) throws Exception {
    return watch(zk, layout, () -> {});
  }

  /**
   * Like {@link #watch(CuratorFramework, ZkLayout)}; {@code changed} runs after every change of a
   * range's holder (on the cache's thread; it must not block).
   */
  public static RangeLeaders watch(CuratorFramework zk, ZkLayout layout, Runnable changed)
      throws Exception {
    RangeLeaders leaders = new RangeLeaders(zk, layout, changed);
    leaders.cache.start();
    return leaders;
  }

  /** The node that took range {@code rangeIndex}'s latest term, or -1 if none is known. */
  public int holder(int rangeIndex) {
    return holders.getOrDefault(rangeIndex, -1);
  }

  private void apply(ChildData data) {
    int range = termRange(data.getPath());
    byte[] bytes = data.getData();
    if (range < 0 || bytes == null || bytes.length != 12) {
      return; // not a term znode, or one no node has bumped yet
    }
    int holder = ByteBuffer.wrap(bytes).getInt(8);
    Integer before = holders.put(range, holder);
    if (before == null || before != holder) {
      changed.run();
    }
  }

  private void forget(ChildData data) {
    int range = termRange(data.getPath());
    if (range >= 0 && holders.remove(range) != null) {
      changed.run();
    }
  }

  /** The range index of a {@code <ranges>/<index>/term} path, or -1 for any other path. */
  private int termRange(String path) {
    if (!path.startsWith(rangesPath) || !path.endsWith("/term")) {
      return -1;
    }
    String id = path.substring(rangesPath.length(), path.length() - "/term".length());
    if (!id.matches("[0-9]{1,9}")) {
      return -1;
    }
    return Integer.parseInt(id);
  }

  @Override
  public void close() {
    cache.close();
  }
}
