package io.frsm.testkit.sim;

/** How each simulated node stores its cells: an option of the simulation setup. */
public enum SimStorage {
  /** A map in memory: the fast default. */
  MEMORY {
    @Override
    NodeStorage open(int node, NodeStorage.DurableListener listener) {
      return new SimStore(node, listener);
    }
  },
  /** A real {@code LsmEngine} per node over its own faulty in-memory file system. */
  LSM {
    @Override
    NodeStorage open(int node, NodeStorage.DurableListener listener) {
      return new LsmNodeStorage(node, listener, false);
    }
  },
  /** As {@link #LSM}, read through the clock cache ({@code CachingCellStore}). */
  LSM_CACHED {
    @Override
    NodeStorage open(int node, NodeStorage.DurableListener listener) {
      return new LsmNodeStorage(node, listener, true);
    }
  };

  abstract NodeStorage open(int node, NodeStorage.DurableListener listener);
}
