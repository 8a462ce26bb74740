package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.ring.Ring;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's topology feed as a client's control connection hears it (docs/formats/wire.md
 * "Topology"), on three real nodes: the view mirrors the node's ring, members and range leaders,
 * carries the cluster's {@code T + 2ε}, and is pushed again when a range's leader dies and another
 * takes the range over.
 */
class TopologyWatchIT {
  /** The nodes' default lease L (consensus.lease); a successor waits L·(1+ρ) before it leads. */
  private static final Duration LEASE = ConsensusKeys.LEASE.defaultValue();

  /**
   * How long the test allows from the kill to the pushed new leader: one lease wait, plus slack for
   * a machine shared by several builds (ZooKeeper round trips, the term bump, the watch's push).
   */
  private static final Duration FOLLOW = LEASE.multipliedBy(2).plusSeconds(8);

  private static final class Recorder implements ClientProtocolClient.TopologyListener {
    final List<TopologySnapshot> views = new CopyOnWriteArrayList<>();
    final List<Long> arrivalNanos = new CopyOnWriteArrayList<>();
    volatile String lost;

    @Override
    public void updated(TopologySnapshot topology) {
      arrivalNanos.add(System.nanoTime());
      views.add(topology);
    }

    @Override
    public void lost(String reason) {
      lost = reason;
    }

    TopologySnapshot last() {
      return views.isEmpty() ? null : views.get(views.size() - 1);
    }
  }

  /** A client certificate with the read role only: all a topology watch needs. */
  private static MutualTls readerTls(TestCluster cluster) {
    return new MutualTls(
        TlsContexts.load(
            cluster.tls().client("watcher", Role.READ), SslProvider.JDK, Duration.ofMinutes(1)),
        TestCluster.CLUSTER_ID,
        Duration.ofSeconds(30));
  }

  @Test
  void watch_mirrorsTheNodesView_andFollowsALeaderKill(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir);
        TransportEventLoops loops = TransportEventLoops.create(1, true);
        ClientProtocolClient control =
            ClientProtocolClient.connect(
                cluster.node(1).clientAddress(),
                TransportConfig.builder(TestCluster.CLUSTER_ID).build(),
                loops,
                readerTls(cluster))) {
      Ring ring = cluster.ring();
      Recorder recorder = new Recorder();
      assertTrue(control.watchTopology(recorder));
      // Every range led by its natural leader (the cluster waited for that), every node live.
      Await.until(
          () -> matchesCluster(recorder.last(), cluster, ring), FOLLOW, "the cluster's view");
      TopologySnapshot first = recorder.last();
      assertEquals(ring.version(), first.ringVersion());
      assertEquals(ring.rangeCount(), first.ranges().size());
      assertEquals(
          TestCluster.BOUNDED_DELAY.plus(TestCluster.CLOCK_SKEW_BOUND.multipliedBy(2)).toNanos()
              / 1_000,
          first.createSettleMicros(),
          "the cluster's T + 2ε, for the fence after an unknown create");
      for (int i = 0; i < ring.rangeCount(); i++) {
        TopologySnapshot.Range r = first.ranges().get(i);
        assertEquals(ring.ranges().get(i).range().endInclusive(), r.endToken());
        assertEquals(ring.replicasOfRange(i), r.replicas(), "natural leader first");
      }
      for (int id = 1; id <= 3; id++) {
        TopologySnapshot.Member m = first.member(id);
        assertEquals(cluster.node(id).clientAddress().getPort(), m.clientPort());
        assertTrue(m.live());
      }

      // Kill the leader of a range the watched node does not lead.
      int range = rangeLedBy(first, 2);
      cluster.crash(2);
      long killedAt = System.nanoTime();
      Await.until(
          () -> {
            TopologySnapshot v = recorder.last();
            int leader = v.ranges().get(range).leader();
            return !v.member(2).live() && leader >= 0 && leader != 2;
          },
          FOLLOW,
          "a pushed view with another leader of range " + range);
      long followedAfterMillis =
          (recorder.arrivalNanos.get(recorder.views.size() - 1) - killedAt) / 1_000_000;
      int successor = recorder.last().ranges().get(range).leader();
      assertEquals(
          List.of(successor), cluster.holdersOf(range), "the view names the range's real holder");
      assertTrue(
          followedAfterMillis < FOLLOW.toMillis(), "followed after " + followedAfterMillis + " ms");
      assertFalse(recorder.views.stream().anyMatch(v -> v.ringVersion() != ring.version()));
      assertEquals(null, recorder.lost, "the watch lives on while its node does");
    }
  }

  /** Whether {@code v} shows every node live and every range led by its natural leader. */
  private static boolean matchesCluster(TopologySnapshot v, TestCluster cluster, Ring ring) {
    if (v == null || v.ranges().size() != ring.rangeCount() || v.members().size() != 3) {
      return false;
    }
    if (!v.members().stream().allMatch(TopologySnapshot.Member::live)) {
      return false;
    }
    for (int i = 0; i < ring.rangeCount(); i++) {
      if (v.ranges().get(i).leader() != ring.replicasOfRange(i).get(0)) {
        return false;
      }
    }
    return true;
  }

  private static int rangeLedBy(TopologySnapshot v, int nodeId) {
    for (int i = 0; i < v.ranges().size(); i++) {
      if (v.ranges().get(i).leader() == nodeId) {
        return i;
      }
    }
    throw new AssertionError("node " + nodeId + " leads no range in " + v);
  }
}
