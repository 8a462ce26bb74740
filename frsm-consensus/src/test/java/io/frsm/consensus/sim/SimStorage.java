package io.frsm.consensus.sim;

/** How each simulated node stores its cells: an option of the simulation setup. */
public enum SimStorage {
  /** A map in memory: the fast default. */
  MEMORY {
    @Override
    NodeStorage open(int node, NodeStorage.DurableListener listener) {
      return new SimStore(node, listener);
    }
  };

  abstract NodeStorage open(int node, NodeStorage.DurableListener listener);
}
