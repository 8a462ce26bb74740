package io.frsm.server.metrics;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.cell.Token;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.node.NaturalLeaders;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three nodes, each with its Prometheus endpoint on an ephemeral loopback port and its meters in
 * that endpoint's registry (as {@code frsm server} wires them): after real operations a scrape over
 * HTTP shows the node's own meters with the values the operations imply, and {@code /health}
 * follows whether the node serves.
 */
class NodeScrapeIT {
  private static final Duration READY = Duration.ofSeconds(60);
  private static final int CASES = 5;
  private static final int GETS = 3;

  private EmbeddedZooKeeper zookeeper;
  private final List<MetricsEndpoint> endpoints = new ArrayList<>();
  private final List<FrsmNode> nodes = new ArrayList<>();

  @AfterEach
  void stop() {
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (FrsmNode n : nodes) {
      closing.add(CompletableFuture.runAsync(n::close));
    }
    closing.forEach(CompletableFuture::join);
    endpoints.forEach(MetricsEndpoint::close);
    if (zookeeper != null) {
      zookeeper.close();
    }
  }

  @Test
  void scrape_showsTheNodesOperations_casRounds_reads_peerMessages_andLsm(@TempDir Path dir)
      throws Exception {
    zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
    for (int id = 1; id <= 3; id++) {
      MetricsEndpoint endpoint =
          MetricsEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      endpoints.add(endpoint);
      FrsmNode node =
          FrsmNode.builder()
              .nodeId(id)
              .clusterId("scrape")
              .dataDirectory(dir.resolve("node-" + id))
              .zookeeper(zookeeper.connectString())
              .zookeeperSessionTimeout(Duration.ofSeconds(3))
              .rack("rack" + id)
              .transportThreads(1)
              .lsm(b -> b.blockCacheSizeBytes(1 << 20))
              .meterRegistry(endpoint.registry())
              .insecure(true) // about the meters, not the wire
              .build();
      endpoint.servingCheck(node::serving);
      nodes.add(node);
    }
    InetSocketAddress first = endpoints.get(0).address();
    assertEquals(503, Scrape.health(first), "a node that has not started does not serve");
    for (FrsmNode n : nodes) {
      n.start();
    }
    for (FrsmNode n : nodes) {
      n.awaitReady(READY);
    }
    NaturalLeaders.await(nodes, READY);
    for (MetricsEndpoint e : endpoints) {
      assertEquals(200, Scrape.health(e.address()));
    }

    FrsmNode node1 = nodes.get(0);
    Scrape before = Scrape.of(first);
    try (FrsmClient client = node1.client()) {
      byte[] key = keyLedBy(node1, 1);
      Version v = client.create(key, "0".getBytes(UTF_8));
      for (int i = 1; i <= CASES; i++) {
        v = client.cas(key, v, Integer.toString(i).getBytes(UTF_8));
      }
      Version stale = v;
      client.cas(key, v, "x".getBytes(UTF_8));
      // Through a fresh session: the first client may already have seen the newer version, and
      // would then answer the stale CAS with a read instead of sending it (KeySessions).
      try (FrsmClient other = node1.client()) {
        assertThrows(CasMismatchException.class, () -> other.cas(key, stale, "y".getBytes(UTF_8)));
      }
      for (int i = 0; i < GETS; i++) {
        assertTrue(client.get(key).isPresent());
      }
    }
    // The core counts an operation when it ends on its loop, which may be after the answer: wait
    // until the scrape shows every CAS and every get.
    Scrape after =
        awaitScrape(
            first,
            s ->
                delta(before, s, "frsm_cas_rounds_total")
                            + delta(before, s, "frsm_cas_mismatches_total")
                        >= CASES + 2
                    && delta(before, s, "frsm_reads_total") >= GETS,
            "every CAS counted warm, cold or as a leader-only mismatch, every get by mode");

    // Operations by type and outcome, with latency sums and histogram buckets.
    assertEquals(
        CASES + 1,
        delta(before, after, "frsm_operations_seconds_count", "type", "cas", "outcome", "ok"));
    assertEquals(
        1,
        delta(
            before, after, "frsm_operations_seconds_count", "type", "cas", "outcome", "mismatch"));
    assertEquals(
        1,
        delta(before, after, "frsm_operations_seconds_count", "type", "create", "outcome", "ok"));
    assertEquals(
        GETS,
        delta(before, after, "frsm_operations_seconds_count", "type", "get", "outcome", "ok"));
    assertTrue(
        delta(before, after, "frsm_operations_seconds_sum", "type", "cas", "outcome", "ok") > 0);
    assertTrue(
        after.samples("frsm_operations_seconds_bucket", "type", "cas", "outcome", "ok").size() > 10,
        "a percentile histogram");
    assertEquals(0, after.sum("frsm_operations_seconds_count", "outcome", "unknown"));

    // One node alone coordinates the key: after the create every successful CAS is warm.
    assertTrue(delta(before, after, "frsm_cas_rounds_total", "mode", "warm") >= CASES);

    // Gets by serving mode: counted and timed alike.
    assertEquals(GETS, delta(before, after, "frsm_reads_total"));
    assertEquals(GETS, delta(before, after, "frsm_reads_latency_seconds_count"));
    for (String mode : List.of("leader_only", "quorum", "mutating_quorum")) {
      assertEquals(
          after.sum("frsm_reads_total", "mode", mode),
          after.sum("frsm_reads_latency_seconds_count", "mode", mode),
          "mode " + mode);
    }

    // Messages to and from both peers (the accepts of the CAS rounds at least).
    for (String peer : List.of("2", "3")) {
      assertTrue(
          delta(before, after, "frsm_peer_messages_total", "peer", peer, "direction", "sent") > 0,
          "to " + peer);
      assertTrue(
          after.sum("frsm_peer_messages_total", "peer", peer, "direction", "received") > 0,
          "from " + peer);
    }
    assertTrue(after.sum("frsm_paxos_messages_sent_total", "type", "accept") >= CASES);
    assertTrue(after.sum("frsm_ranges_led") > 0);

    // The storage engine of the same node: its commit log synced the writes.
    assertTrue(delta(before, after, "frsm_commitlog_sync_latency_seconds_count") > 0);
    assertTrue(delta(before, after, "frsm_commitlog_bytes_written_bytes_total") > 0);
    assertTrue(after.sum("frsm_lsm_memtable_bytes") > 0);
    assertTrue(after.sum("frsm_lsm_sstable_count") >= 0);
    assertTrue(after.sum("jvm_memory_used_bytes") > 0);

    // A node that stops no longer serves: /health says so while the endpoint still answers.
    FrsmNode node3 = nodes.get(2);
    node3.close();
    assertEquals(503, Scrape.health(endpoints.get(2).address()));
  }

  private static double delta(Scrape before, Scrape after, String name, String... labels) {
    double was = before.samples(name, labels).stream().mapToDouble(Scrape.Sample::value).sum();
    return after.sum(name, labels) - was;
  }

  private static Scrape awaitScrape(
      InetSocketAddress address, java.util.function.Predicate<Scrape> condition, String what)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      Scrape s = Scrape.of(address);
      if (condition.test(s)) {
        return s;
      }
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for " + what + ":\n" + s.text());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  /** A key whose range's natural leader (and, once settled, leader) is {@code nodeId}. */
  private static byte[] keyLedBy(FrsmNode node, int nodeId) {
    for (int i = 0; ; i++) {
      byte[] key = ("scrape/" + i).getBytes(UTF_8);
      if (node.ring().naturalLeaderFor(Token.of(key)) == nodeId) {
        return key;
      }
    }
  }
}
