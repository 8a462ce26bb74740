package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.ClientObserver;
import io.frsm.api.FrsmClient;
import io.frsm.client.SeedClient;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.consensus.core.Placement;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25, "topology changes under load: ring change": thin clients that know only the seed nodes'
 * addresses increment hot counters by CAS (and read them) while the ring changes twice — node 4 is
 * added, then node 1, one of the seeds, is decommissioned. No acknowledged increment is lost or
 * doubled, no client is answered a value a linearizable counter cannot have, and a client's view
 * follows the ring versions the nodes push, never going back. Prints the longest time a hot key
 * went unanswered during the changes (the availability cost of two ring changes).
 */
class RingChangeUnderLoadIT {
  private static final System.Logger LOG = System.getLogger(RingChangeUnderLoadIT.class.getName());
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** A thin client's topology pushes, as its observer hears them. */
  private static final class ViewRecorder implements ClientObserver {
    final AtomicReference<SeedClient> client = new AtomicReference<>();
    final List<Long> ringVersions = new CopyOnWriteArrayList<>();

    @Override
    public void topologyChanged(int liveNodes) {
      SeedClient c = client.get();
      TopologySnapshot view = c == null ? null : c.topology();
      if (view != null) {
        ringVersions.add(view.ringVersion());
      }
    }
  }

  @Test
  void addThenDecommission_underCounterLoad_losesNothing_andTheClientFollows(@TempDir Path dir)
      throws Exception {
    ViewRecorder recorder = new ViewRecorder();
    try (TestCluster cluster = new TestCluster(dir, 3, 3);
        CuratorFramework zk = RingHistoryIT.connect(cluster);
        FrsmNode fourth = cluster.nodeBuilder(4, dir.resolve("node-4")).join(true).build();
        FrsmClient watched = watchedClient(cluster, recorder)) {
      ZkLayout layout = new ZkLayout(TestCluster.CLUSTER_ID);
      RingHistory history = new RingHistory(zk, layout);
      Placement formed = cluster.ring().placement();
      RingVersion initial = RingVersion.initial(formed);
      MembershipOrchestrator admin = TestOrchestrator.of(zk, cluster, id -> id == 4, WAIT);
      long formedView = viewVersion(watched);
      assertEquals(cluster.node(1).topologyView().ringVersion(), formedView);

      HotKeyLoad load = new HotKeyLoad(cluster, List.of(0, 1, 2, 3));
      load.awaitIncrementsAfter(System.nanoTime(), WAIT, "the load to run");
      long changesStart = System.nanoTime();

      // 3 -> 4 nodes: node 4 joins serving nothing and is added (learner, voter, settled).
      fourth.start();
      fourth.awaitReady(WAIT);
      admin.request(Kind.ADD, 4, -1);
      Await.until(() -> quietly(() -> admin.pending() == null), WAIT, "node 4 to be added");
      long added = history.newest(initial).version();
      Await.until(
          () -> viewShows(watched, range -> range.replicas().contains(4)),
          WAIT,
          "the client's view to route ranges to node 4");
      long viewAfterAdd = viewVersion(watched);
      assertTrue(viewAfterAdd > formedView, "the client learned a newer ring version");
      assertTrue(
          recorder.ringVersions.contains(viewAfterAdd),
          "learned by a push: " + recorder.ringVersions);

      // 4 -> 3 nodes: node 1, one of the clients' seeds, is decommissioned.
      admin.request(Kind.DECOMMISSION, 1, -1);
      Await.until(() -> quietly(() -> admin.pending() == null), WAIT, "node 1 to leave");
      RingVersion last = history.newest(initial);
      assertTrue(last.version() > added);
      assertFalse(last.placement().nodes().contains(1), "node 1 is in no range");
      Await.until(
          () ->
              cluster.node(2).ringVersion() == last.version()
                  && fourth.ringVersion() == last.version(),
          WAIT,
          "the remaining nodes to run the last version");
      Await.until(
          () -> !viewShows(watched, range -> range.replicas().contains(1)),
          WAIT,
          "the client's view to route no range to node 1");
      assertTrue(viewVersion(watched) > viewAfterAdd, "the client learned the decommission");
      Await.until(
          () -> viewVersion(watched) == cluster.node(2).topologyView().ringVersion(),
          WAIT,
          "the client's view at the ring version the nodes tell");
      long changesEnd = System.nanoTime();

      load.awaitIncrementsAfter(changesEnd, WAIT, "increments on every hot key after the changes");
      load.close();
      assertEquals(List.of(), load.counterViolations(cluster.thinClient()), "lost or doubled");
      assertEquals(List.of(), load.answerViolations(), "answers no counter could give");
      assertTrue(load.answersChecked() > 0);
      List<Long> seen = List.copyOf(recorder.ringVersions);
      for (int i = 1; i < seen.size(); i++) {
        assertTrue(seen.get(i) >= seen.get(i - 1), "the client's view went back: " + seen);
      }

      long acknowledged = load.keys().stream().mapToLong(k -> k.acknowledged.get()).sum();
      long unknown = load.keys().stream().mapToLong(k -> k.unknown.get()).sum();
      long longestGapMillis =
          load.keys().stream()
                  .mapToLong(k -> HotKeyLoad.longestGapNanos(k, changesStart, changesEnd))
                  .max()
                  .orElseThrow()
              / 1_000_000;
      LOG.log(
          System.Logger.Level.INFO,
          "ring change under load: versions "
              + initial.version()
              + " -> "
              + added
              + " -> "
              + last.version()
              + " in "
              + (changesEnd - changesStart) / 1_000_000
              + " ms; "
              + acknowledged
              + " increments acknowledged, "
              + unknown
              + " unknown, "
              + load.answersChecked()
              + " answers checked, "
              + load.errorCount()
              + " client errors "
              + load.errors().stream().limit(3).toList()
              + "; ring versions pushed to the watching client "
              + seen
              + "; longest gap of a hot key "
              + longestGapMillis
              + " ms");
    }
  }

  /** A seed-only thin client whose observer records the ring version of every pushed view. */
  private static FrsmClient watchedClient(TestCluster cluster, ViewRecorder recorder) {
    TlsFiles files = cluster.tls().admin();
    FrsmClient client =
        FrsmClient.builder()
            .seeds(cluster.seeds())
            .clusterId(TestCluster.CLUSTER_ID)
            .operationTimeout(Duration.ofSeconds(10))
            .tls(files.caBundle(), files.certificateChain(), files.privateKey())
            .observer(recorder)
            .build();
    recorder.client.set((SeedClient) client);
    return client;
  }

  /** Whether some range of {@code client}'s view passes {@code test} (false before a view). */
  private static boolean viewShows(FrsmClient client, Predicate<TopologySnapshot.Range> test) {
    TopologySnapshot view = ((SeedClient) client).topology();
    return view != null && view.ranges().stream().anyMatch(test);
  }

  private static long viewVersion(FrsmClient client) {
    TopologySnapshot view = ((SeedClient) client).topology();
    return view == null ? -1 : view.ringVersion();
  }

  private static boolean quietly(java.util.concurrent.Callable<Boolean> condition) {
    try {
      return condition.call();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
