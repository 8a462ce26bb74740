package io.frsm.transport;

import io.frsm.client.transport.TopologySnapshot;
import java.util.List;

/**
 * What a node serves to clients' topology watches ({@code WatchTopology}, docs/formats/wire.md
 * "Topology"): its current view of the cluster, and a signal when that view may have changed.
 * Implementations are thread-safe; {@link #current()} never blocks.
 */
public interface TopologyFeed {
  /** A node that knows nothing to tell: no members, no ring. */
  TopologyFeed NONE =
      new TopologyFeed() {
        @Override
        public TopologySnapshot current() {
          return new TopologySnapshot(0, 0, List.of(), List.of());
        }

        @Override
        public AutoCloseable onChange(Runnable changed) {
          return () -> {};
        }
      };

  /** The node's view now. */
  TopologySnapshot current();

  /**
   * Runs {@code changed} (on any thread, and it must not block) whenever {@link #current()} may
   * differ from before, until the returned handle is closed.
   */
  AutoCloseable onChange(Runnable changed);
}
