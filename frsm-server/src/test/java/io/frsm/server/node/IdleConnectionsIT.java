package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24 point 4, the idle timeout, on a running three-node cluster over mutual TLS with {@code
 * transport.idleTimeout} of 1 s: a connection that completes its handshake and then sends nothing
 * is closed after the timeout and counted; a thin client with no operations for several timeouts
 * (its topology watch open) and peers with nothing to say keep their connections, because both send
 * keep-alives, and the next operation succeeds.
 */
class IdleConnectionsIT {
  private static final Duration IDLE = Duration.ofSeconds(1);
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @Test
  void aSilentConnection_isClosedAfterTheIdleTimeout(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withIdleTimeout(dir, IDLE)) {
      FrsmNode target = cluster.node(1);
      InetSocketAddress address =
          new InetSocketAddress("127.0.0.1", target.clientAddress().getPort());
      SSLContext tls = TlsSockets.context(cluster.tls().admin(), cluster.tls().admin());
      double before = idleCloses(target, "client");
      // Timed from before the connect: the node's timer starts at its accept, which comes later.
      long start = System.nanoTime();
      try (SSLSocket s = TlsSockets.open(tls, address, DEADLINE)) {
        s.setSoTimeout((int) DEADLINE.toMillis());
        try {
          assertEquals(-1, s.getInputStream().read(), "the node closed the connection");
        } catch (IOException reset) {
          // closed by the node: a reset (or the TLS close) is a close too
        }
      }
      long elapsed = System.nanoTime() - start;
      assertTrue(
          elapsed >= IDLE.toNanos(),
          "closed after " + TimeUnit.NANOSECONDS.toMillis(elapsed) + " ms, before the timeout");
      Await.until(
          () -> idleCloses(target, "client") == before + 1,
          DEADLINE,
          "the idle close counted on the client port");
    }
  }

  @Test
  void aQuietThinClient_andQuietPeers_keepTheirConnections_andTheNextOperationSucceeds(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withIdleTimeout(dir, IDLE)) {
      FrsmClient client = cluster.thinClient();
      byte[] key = "quiet".getBytes(UTF_8);
      client.create(key, "before".getBytes(UTF_8));

      // Five timeouts with no operation: every node's ports must close nothing as idle.
      long end = System.nanoTime() + IDLE.multipliedBy(5).toNanos();
      while (System.nanoTime() - end < 0) {
        assertNoIdleCloses(cluster);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }

      assertArrayEquals("before".getBytes(UTF_8), client.get(key).orElseThrow().value());
      assertNoIdleCloses(cluster);
    }
  }

  private static void assertNoIdleCloses(TestCluster cluster) {
    for (int id = 1; id <= cluster.size(); id++) {
      for (String port : new String[] {"client", "peer"}) {
        assertEquals(
            0,
            idleCloses(cluster.node(id), port),
            "node " + id + "'s " + port + " port closed a quiet connection as idle");
      }
    }
  }

  private static double idleCloses(FrsmNode node, String port) {
    return node.meterRegistry()
        .get("frsm.transport." + port + ".inbound.refused")
        .tag("reason", "idle")
        .functionCounter()
        .count();
  }
}
