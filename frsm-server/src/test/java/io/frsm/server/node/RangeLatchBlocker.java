package io.frsm.server.node;

import io.frsm.server.zk.ZkLayout;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;

/**
 * A test fault: a participant in one range's leader latch ({@code /ranges/<range>/latch}) that
 * never takes the range's term (a Curator LeaderLatch: the nodes' RangeLatch keeps its znode
 * layout, so both queue in one order). Queued behind the current holder, it wins the latch when the
 * holder leaves and keeps every node out until {@link #close()}: the range has no leader while its
 * preferred replica already serves. That is the window of a hand-over (a restarted natural leader
 * that is ready but has not won its range back yet), held open for as long as a test needs, so what
 * the nodes and clients do in it can be asserted without racing the hand-over.
 */
final class RangeLatchBlocker implements AutoCloseable {
  private final CuratorFramework zk;
  private final LeaderLatch latch;
  private boolean closed;

  /**
   * Joins range {@code range}'s latch of {@code cluster} now, with the nodes' ZooKeeper identity
   * (the latch's znodes grant no other); the caller makes sure a node holds it already.
   */
  RangeLatchBlocker(TestCluster cluster, int range) throws Exception {
    this.zk = cluster.zooKeeperClient();
    zk.start();
    try {
      if (!zk.blockUntilConnected(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(
            "cannot reach ZooKeeper at " + cluster.zookeeperConnectString());
      }
      String path = new ZkLayout(TestCluster.CLUSTER_ID).latch(ZkLayout.rangeId(range));
      this.latch = new LeaderLatch(zk, path, "test-blocker");
      latch.start();
    } catch (Exception | Error e) {
      zk.close();
      throw e;
    }
  }

  /** Waits until the blocker holds the latch (the node before it left). */
  void awaitHolding(Duration timeout) {
    Await.until(latch::hasLeadership, timeout, "the blocker to hold the range's latch");
  }

  /**
   * Waits until node {@code nodeId} competes in the latch: it joins only while it sees itself as
   * the range's preferred replica (the first live and ready one), so its routing sends the range's
   * operations to itself from then on.
   */
  void awaitParticipant(int nodeId, Duration timeout) {
    Await.until(
        () -> {
          try {
            return latch.getParticipants().stream()
                .anyMatch(p -> p.getId().equals(Integer.toString(nodeId)));
          } catch (Exception e) {
            return false; // a participant left while listed: look again
          }
        },
        timeout,
        "node " + nodeId + " to compete for the range");
  }

  /** Leaves the latch: the next participant (the preferred replica) wins it and takes a term. */
  @Override
  public void close() throws Exception {
    if (closed) {
      return;
    }
    closed = true;
    try {
      latch.close();
    } finally {
      zk.close();
    }
  }
}
