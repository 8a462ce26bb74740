package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.ReadMode;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.client.SeedClient;
import io.frsm.server.zk.ClusterTiming;
import io.frsm.server.zk.ZkLayout;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client ({@link SeedClient}, from the nodes' addresses) against three real nodes in steady
 * state: it sends every operation straight to the leader of its key's range (no node redirects or
 * forwards any of them), its delete and fence behave alike through the sync and async API (also for
 * the embedded client), and it times fences with the T and ε the cluster published in its shape —
 * which a node configured otherwise cannot join. Failures and stale views are in {@link
 * ThinClientFailoverIT}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ThinClientIT {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private TestCluster cluster;
  private Path dir;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    this.dir = dir;
    cluster = new TestCluster(dir.resolve("cluster"));
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyOperation_goesStraightToTheLeaderOfItsKeysRange() {
    FrsmClient client = cluster.thinClient();
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      keys.add(("straight/" + i).getBytes(UTF_8));
    }
    // Each range is led by its natural leader alone (TestCluster waits for that): that node must
    // coordinate every operation on the range's keys, and nobody else any.
    Map<Integer, Long> expected = new TreeMap<>();
    for (int id = 1; id <= cluster.size(); id++) {
      expected.put(id, 0L);
    }
    for (byte[] key : keys) {
      List<Integer> holders = cluster.holdersOf(cluster.rangeOf(key));
      assertEquals(1, holders.size(), "one leader per range");
      expected.merge(holders.get(0), 5L, Long::sum); // create, get, cas, fence, delete
    }
    Map<Integer, Long> coordinatedBefore = coordinatedPerNode();
    double routedBefore = routed("redirected") + routed("forwarded");

    for (byte[] key : keys) {
      client.create(key, key);
      Versioned read = client.get(key).orElseThrow();
      assertArrayEquals(key, read.value());
      // Not the create's version: a get that cannot tell the value was chosen (a replica slow on a
      // loaded machine) settles it one version up (FrsmClient#get).
      Version cas = client.cas(key, read.version(), "x".getBytes(UTF_8));
      Versioned fenced = client.fence(key).orElseThrow();
      assertEquals(cas.next(), fenced.version());
      client.delete(key, fenced.version());
    }

    Map<Integer, Long> coordinated = new TreeMap<>();
    coordinatedPerNode().forEach((id, n) -> coordinated.put(id, n - coordinatedBefore.get(id)));
    assertEquals(expected, coordinated, "operations each node coordinated");
    assertEquals(
        routedBefore,
        routed("redirected") + routed("forwarded"),
        "operations a node redirected or forwarded");
  }

  @Test
  void readModes_reachTheLeader_asTheyPromise_andATimeoutIsPerCall() {
    FrsmClient client = cluster.thinClient();
    byte[] key = "read-modes".getBytes(UTF_8);
    Version v = client.create(key, key);
    FrsmNode leader = cluster.node(cluster.holdersOf(cluster.rangeOf(key)).get(0));
    client.get(key); // the leader's own commit is in its cell: later plain gets are leader-only
    long leaderOnly = reads(leader, "leader_only");
    client.get(key);
    assertEquals(leaderOnly + 1, reads(leader, "leader_only"), "the default: under the lease");

    long quorum = reads(leader, "quorum") + reads(leader, "mutating_quorum");
    FrsmClient quorumReads = client.withReadMode(ReadMode.QUORUM);
    assertArrayEquals(key, quorumReads.get(key).orElseThrow().value());
    assertEquals(quorum + 1, reads(leader, "quorum") + reads(leader, "mutating_quorum"));
    assertEquals(leaderOnly + 1, reads(leader, "leader_only"), "QUORUM never uses the lease");

    Versioned fenced = client.withReadMode(ReadMode.FENCED).get(key).orElseThrow();
    assertEquals(v.next(), fenced.version(), "FENCED moves the version on");
    assertThrows(CasMismatchException.class, () -> client.cas(key, v, key));

    // A call that may wait 1 ns for its answer cannot get one; a read then was not executed.
    assertThrows(
        NotExecutedException.class, () -> client.withTimeout(Duration.ofNanos(1)).get(key));
    assertArrayEquals(key, client.get(key).orElseThrow().value(), "the root keeps its timeout");

    try (FrsmClient embedded = cluster.node(1).client()) {
      assertThrows(
          UnsupportedOperationException.class, () -> embedded.withTimeout(Duration.ofSeconds(1)));
      assertArrayEquals(key, embedded.withReadMode(ReadMode.QUORUM).get(key).orElseThrow().value());
    }
  }

  private static long reads(FrsmNode node, String mode) {
    return node.meterRegistry().get("frsm.reads.latency").tag("mode", mode).timer().count();
  }

  @Test
  void deleteAndFence_answerAlike_throughTheSyncAndAsyncApi_ofBothClients() throws Exception {
    exerciseDeleteAndFence(cluster.thinClient(), "thin/");
    try (FrsmClient embedded = cluster.node(2).client()) {
      exerciseDeleteAndFence(embedded, "embedded/");
    }
  }

  private static void exerciseDeleteAndFence(FrsmClient c, String prefix) throws Exception {
    byte[] absent = (prefix + "absent").getBytes(UTF_8);
    assertEquals(Optional.empty(), await(c.fenceAsync(absent)), "async fence of an absent key");
    assertEquals(Optional.empty(), c.fence(absent), "sync fence of an absent key");

    byte[] key = (prefix + "key").getBytes(UTF_8);
    byte[] value = "v".getBytes(UTF_8);
    Version created = c.create(key, value);
    Versioned fencedAsync = await(c.fenceAsync(key)).orElseThrow();
    assertEquals(new Versioned(value, created.next()), fencedAsync, "an async fence bumps");
    Versioned fenced = c.fence(key).orElseThrow();
    assertEquals(new Versioned(value, fencedAsync.version().next()), fenced, "so does a sync one");

    // A delete expecting a version older than the fence's fails, carrying the current value.
    ExecutionException stale =
        assertThrows(ExecutionException.class, () -> await(c.deleteAsync(key, created)));
    CasMismatchException mismatch = assertInstanceOf(CasMismatchException.class, stale.getCause());
    assertEquals(created, mismatch.expected());
    assertEquals(Optional.of(fenced), mismatch.current());
    CasMismatchException syncMismatch =
        assertThrows(CasMismatchException.class, () -> c.delete(key, created));
    assertEquals(Optional.of(fenced), syncMismatch.current());

    assertNull(await(c.deleteAsync(key, fenced.version())), "an async delete completes empty");
    assertEquals(Optional.empty(), await(c.getAsync(key)));
    CasMismatchException gone =
        assertThrows(CasMismatchException.class, () -> c.delete(key, fenced.version()));
    assertEquals(Optional.empty(), gone.current(), "a deleted key is absent");
    assertEquals(Optional.empty(), await(c.fenceAsync(key)), "async fence of a deleted key");

    Version again = c.create(key, value);
    c.delete(key, again);
    assertEquals(Optional.empty(), c.get(key), "after a sync delete");

    // Bad arguments fail the returned future, not the caller, and touch nothing.
    ExecutionException noVersion =
        assertThrows(ExecutionException.class, () -> await(c.deleteAsync(key, null)));
    assertInstanceOf(InvalidRequestException.class, noVersion.getCause());
    ExecutionException emptyKey =
        assertThrows(ExecutionException.class, () -> await(c.fenceAsync(new byte[0])));
    assertInstanceOf(InvalidRequestException.class, emptyKey.getCause());
    assertThrows(InvalidRequestException.class, () -> c.delete(key, null));
    assertThrows(InvalidRequestException.class, () -> c.fence(null));
  }

  @Test
  void theClient_timesFencesWithTheTimingTheClusterPublished() throws Exception {
    ClusterTiming published =
        new ClusterTiming(TestCluster.BOUNDED_DELAY, TestCluster.CLOCK_SKEW_BOUND);
    assertNotEquals(ClusterTiming.DEFAULTS, published, "the test cluster runs non-default values");
    SeedClient client = assertInstanceOf(SeedClient.class, cluster.thinClient());
    assertEquals(published.createSettle(), client.createSettle(), "from the nodes' topology");
    assertEquals(Duration.ofMillis(4_020), client.createSettle());

    try (CuratorFramework zk = cluster.zooKeeperClient()) {
      zk.start();
      assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
      String stored =
          new String(zk.getData().forPath(new ZkLayout(TestCluster.CLUSTER_ID).shape()), UTF_8);
      assertTrue(stored.startsWith("v3|16|3|4000000|10000|"), stored);
    }
  }

  @Test
  void aNodeConfiguredWithAnotherTOrEpsilon_isRefused_namingBothValues() {
    FrsmNode longerT =
        cluster.nodeBuilder(2, dir.resolve("other-t")).boundedDelay(Duration.ofSeconds(9)).build();
    IllegalStateException e = assertThrows(IllegalStateException.class, longerT::start);
    assertTrue(
        e.getMessage().contains("node 2 is configured with T = 9000 ms, ε = 10 ms")
            && e.getMessage().contains("runs with T = 4000 ms, ε = 10 ms"),
        e.getMessage());
    longerT.close();

    FrsmNode otherSkew =
        cluster
            .nodeBuilder(3, dir.resolve("other-epsilon"))
            .clockSkewBound(Duration.ofMillis(250))
            .build();
    e = assertThrows(IllegalStateException.class, otherSkew::start);
    assertTrue(e.getMessage().contains("ε = 250 ms"), e.getMessage());
    otherSkew.close();

    // The refused nodes never registered: the real nodes 2 and 3 still serve their ranges.
    cluster.awaitNaturalLeaders();
    FrsmClient client = cluster.thinClient();
    for (int i = 0; i < 10; i++) {
      byte[] key = ("after-refusal/" + i).getBytes(UTF_8);
      client.create(key, key);
    }
  }

  /** Operations each node coordinated so far (client operations only, every type and outcome). */
  private Map<Integer, Long> coordinatedPerNode() {
    Map<Integer, Long> out = new TreeMap<>();
    for (int id = 1; id <= cluster.size(); id++) {
      long n = 0;
      for (Timer t : cluster.node(id).meterRegistry().find("frsm.operations").timers()) {
        n += t.count();
      }
      out.put(id, n);
    }
    return out;
  }

  private double routed(String how) {
    double sum = 0;
    for (int id = 1; id <= cluster.size(); id++) {
      sum +=
          cluster
              .node(id)
              .meterRegistry()
              .get("frsm.operations.routed")
              .tag("how", how)
              .counter()
              .count();
    }
    return sum;
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }
}
