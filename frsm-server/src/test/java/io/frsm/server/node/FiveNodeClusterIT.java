package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.cell.Key;
import io.frsm.cell.Token;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.consensus.core.Operation;
import io.frsm.server.ring.Ring;
import io.frsm.transport.CoreOperations;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Five real nodes, replication factor 3: each key lives on exactly its range's three replicas,
 * every range is led by its natural leader, a node outside a key's replica set forwards (embedded
 * client) or redirects (client protocol), and the leaders answer gets from their own stores.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FiveNodeClusterIT {
  private static final int NODES = 5;
  private TestCluster cluster;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = new TestCluster(dir, NODES);
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyRange_isLedByItsNaturalLeader_andTheGaugesAgree() {
    Ring ring = cluster.ring();
    assertEquals(NODES * 16, ring.rangeCount());
    int led = 0;
    for (int r = 0; r < ring.rangeCount(); r++) {
      assertEquals(3, ring.replicasOfRange(r).size());
      assertEquals(List.of(ring.replicasOfRange(r).get(0)), cluster.holdersOf(r), "range " + r);
    }
    for (int id = 1; id <= NODES; id++) {
      FrsmNode n = cluster.node(id);
      double gauge = n.meterRegistry().get("frsm.ranges.led").gauge().value();
      assertEquals(n.rangesLed(), gauge, "node " + id);
      led += n.rangesLed();
    }
    assertEquals(ring.rangeCount(), led);
  }

  @Test
  void keys_liveOnExactlyTheirReplicas_throughThinAndEmbeddedClients() throws Exception {
    List<byte[]> keys = new ArrayList<>();
    FrsmClient thin = cluster.thinClient();
    for (int i = 0; i < 40; i++) {
      byte[] key = ("five/" + i).getBytes(UTF_8);
      keys.add(key);
      byte[] value = ("v" + i).getBytes(UTF_8);
      if (i % 2 == 0) {
        thin.create(key, value);
      } else {
        try (FrsmClient embedded = cluster.node(1 + i % NODES).client()) {
          embedded.create(key, value);
        }
      }
    }
    Ring ring = cluster.ring();
    for (int i = 0; i < keys.size(); i++) {
      byte[] key = keys.get(i);
      List<Integer> replicas = ring.replicasFor(Token.of(key));
      int holding = 0;
      for (int id = 1; id <= NODES; id++) {
        boolean stored = cluster.node(id).engine().get(Key.of(key)) != null;
        if (!replicas.contains(id)) {
          assertTrue(!stored, "node " + id + " is not a replica of key " + i + " but stores it");
        } else if (stored) {
          holding++;
        }
      }
      assertTrue(holding >= 2, "a quorum of key " + i + "'s replicas stores it: " + holding);
      // Every node's embedded client reads it (the non-replicas by forwarding).
      for (int id = 1; id <= NODES; id++) {
        try (FrsmClient embedded = cluster.node(id).client()) {
          assertArrayEquals(
              ("v" + i).getBytes(UTF_8), embedded.get(key).orElseThrow().value(), "via " + id);
        }
      }
    }
  }

  @Test
  void aNodeOutsideTheReplicaSet_forwardsEmbeddedOperations_andRedirectsClientProtocol()
      throws Exception {
    Ring ring = cluster.ring();
    byte[] key = null;
    int outsider = -1;
    for (int i = 0; key == null; i++) {
      byte[] candidate = ("outside/" + i).getBytes(UTF_8);
      List<Integer> replicas = ring.replicasFor(Token.of(candidate));
      for (int id = 1; id <= NODES; id++) {
        if (!replicas.contains(id)) {
          key = candidate;
          outsider = id;
          break;
        }
      }
    }
    FrsmNode node = cluster.node(outsider);
    int leader = ring.replicasFor(Token.of(key)).get(0);
    double forwarded = routed(node, "forwarded");
    try (FrsmClient embedded = node.client()) {
      embedded.create(key, "x".getBytes(UTF_8));
      assertArrayEquals("x".getBytes(UTF_8), embedded.get(key).orElseThrow().value());
    }
    assertEquals(forwarded + 2, routed(node, "forwarded"));
    assertNull(node.engine().get(Key.of(key)), "the outsider never stores the key");

    double redirected = routed(node, "redirected");
    try (TransportEventLoops loops = TransportEventLoops.create(1, false);
        ClientProtocolClient raw =
            ClientProtocolClient.connect(
                node.clientAddress(),
                TransportConfig.builder(TestCluster.CLUSTER_ID).build(),
                loops,
                new MutualTls(
                    TlsContexts.load(cluster.tls().admin(), SslProvider.JDK, Duration.ofMinutes(1)),
                    TestCluster.CLUSTER_ID,
                    Duration.ofSeconds(30)))) {
      OperationResponse response =
          raw.call(
                  new OperationRequest(CoreOperations.toClient(new Operation.Get(Key.of(key))), 0),
                  Duration.ofSeconds(5))
              .get();
      OperationResponse.Redirect redirect =
          assertInstanceOf(OperationResponse.Redirect.class, response);
      assertEquals(cluster.node(leader).clientAddress().getPort(), redirect.leaderPort());
    }
    assertEquals(redirected + 1, routed(node, "redirected"));
  }

  @Test
  void aNodeOutsideTheShape_isRefusedWithAClearError() {
    FrsmNode sixth = cluster.outsider(6);
    IllegalStateException e = assertThrows(IllegalStateException.class, sixth::start);
    assertTrue(
        e.getMessage().contains("node 6 is not one of cluster " + TestCluster.CLUSTER_ID),
        e.getMessage());
    assertTrue(e.getMessage().contains("[1, 2, 3, 4, 5]"), e.getMessage());
  }

  @Test
  void leaders_serveLeaderOnlyReads_inSteadyState() {
    FrsmClient thin = cluster.thinClient();
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      byte[] key = ("steady/" + i).getBytes(UTF_8);
      thin.create(key, "s".getBytes(UTF_8));
      keys.add(key);
    }
    Await.until(
        () -> {
          keys.forEach(thin::get);
          return leaderOnlyReads() > 0;
        },
        Duration.ofSeconds(30),
        "leader-only reads");
    long before = leaderOnlyReads();
    for (int round = 0; round < 3; round++) {
      keys.forEach(thin::get);
    }
    long served = leaderOnlyReads() - before;
    System.out.printf(
        "five nodes: leader-only gets counted over 30 steady-state gets: %d (counts are published"
            + " per tick, so late ones of the wait above may be included)%n",
        served);
    assertTrue(served > 0);
  }

  private long leaderOnlyReads() {
    long sum = 0;
    for (int id = 1; id <= NODES; id++) {
      sum +=
          (long)
              cluster
                  .node(id)
                  .meterRegistry()
                  .get("frsm.reads")
                  .tag("mode", "leader_only")
                  .functionCounter()
                  .count();
    }
    return sum;
  }

  private static double routed(FrsmNode node, String how) {
    return node.meterRegistry().get("frsm.operations.routed").tag("how", how).counter().count();
  }
}
