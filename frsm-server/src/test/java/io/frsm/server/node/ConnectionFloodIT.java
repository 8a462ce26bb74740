package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.client.transport.WireFormat;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24: 80 half-sent 16 MB frames grew a node by 1.2 GB of direct memory. Against a running
 * node over mutual TLS: connections that each begin a largest frame and stop are held to the client
 * port's budget for frames not yet complete (256 MiB by default: fifteen such frames) — every one
 * beyond it is closed and counted — and the node keeps serving a well-behaved client.
 */
class ConnectionFloodIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final int HALF_SENT = 40;

  @Test
  void halfSentLargestFrames_beyondTheBudget_areClosed_andTheNodeKeepsServing(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      FrsmNode target = cluster.node(1);
      InetSocketAddress address =
          new InetSocketAddress("127.0.0.1", target.clientAddress().getPort());
      SSLContext tls = TlsSockets.context(cluster.tls().admin(), cluster.tls().admin());
      int declared = WireFormat.DEFAULT_MAX_FRAME_BYTES;
      List<SSLSocket> sockets = new ArrayList<>();
      try {
        for (int i = 0; i < HALF_SENT; i++) {
          SSLSocket s = TlsSockets.open(tls, address, DEADLINE);
          sockets.add(s);
          try {
            // A frame's length prefix and its first 64 KiB, then nothing.
            s.getOutputStream().write(ByteBuffer.allocate(4 + 65_536).putInt(declared).array());
            s.getOutputStream().flush();
          } catch (IOException closedAlready) {
            // Closed by the node for the budget before all was written: counted below.
          }
        }
        long fit = 256L * 1024 * 1024 / (declared + 4L);
        Await.until(
            () -> refused(target, "frame_budget") >= HALF_SENT - fit,
            DEADLINE,
            "the node to close the connections beyond its frame budget");
        assertTrue(
            refused(target, "frame_budget") <= HALF_SENT - fit + 1,
            "only frames beyond the budget are refused: " + refused(target, "frame_budget"));

        FrsmClient client = cluster.thinClient();
        byte[] key = "flood".getBytes(UTF_8);
        Version v = client.create(key, "still serving".getBytes(UTF_8));
        assertArrayEquals(
            "still serving".getBytes(UTF_8), client.get(key).orElseThrow().value(), "at " + v);
      } finally {
        for (SSLSocket s : sockets) {
          s.close();
        }
      }
    }
  }

  private static double refused(FrsmNode node, String reason) {
    return node.meterRegistry()
        .get("frsm.transport.client.inbound.refused")
        .tag("reason", reason)
        .functionCounter()
        .count();
  }
}
