package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The node-wide budget for half-sent inbound frames (issue 24 point 4: one number bounds what all
 * of a node's ports can hold): the peer and client ports on one set of event loops share it, so a
 * frame that fits its own port's budget is still refused (closed, counted, logged) when the other
 * port holds the node's; the node's budget frees as those connections close.
 */
class NodeFrameBudgetTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
  private static final int MAX_FRAME = 64 * 1024;

  /** Each port alone could hold four frames; the node only five, both ports together. */
  private static final TransportConfig CONFIG =
      TransportConfig.builder(CLUSTER)
          .maxFrameBytes(MAX_FRAME)
          .partialFrameBudgetBytes(4 * MAX_FRAME)
          .nodeFrameBudgetBytes(5 * MAX_FRAME)
          .build();

  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final List<Socket> sockets = new ArrayList<>();
  private ClientProtocolServer clients;
  private NettyPeerTransport peers;

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    if (peers != null) {
      peers.close();
    }
    if (clients != null) {
      clients.close();
    }
    loops.close();
  }

  private void startBothPorts() {
    clients =
        ClientProtocolServer.start(
            LOOPBACK,
            request ->
                CompletableFuture.completedFuture(
                    new OperationResponse.Completed(
                        new ClientOutcome.ReadResult(Optional.empty()))),
            CONFIG,
            loops);
    peers = NettyPeerTransport.start(1, LOOPBACK, id -> null, (from, m) -> {}, CONFIG, loops);
  }

  @Test
  void aFrameThatFitsItsPort_isRefused_whenTheOtherPortHoldsTheNodesBudget() throws Exception {
    startBothPorts();
    InboundLimits client = clients.limits();
    InboundLimits peer = peers.limits();
    assertSame(client.nodeBudget(), peer.nodeBudget(), "one budget for the node's ports");

    List<Socket> clientFrames = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      clientFrames.add(beginFrame(clients.localAddress()));
      int held = i;
      Await.until(
          () -> client.reservedBytes() == held * (long) MAX_FRAME,
          DEADLINE,
          "client frame " + i + " held");
    }
    try (TransportWarnings warnings = TransportWarnings.capture()) {
      Socket fits = beginFrame(peers.localAddress());
      Await.until(() -> peer.reservedBytes() == MAX_FRAME, DEADLINE, "the fifth frame held");
      Socket beyond = beginFrame(peers.localAddress());
      awaitClosedByServer(beyond);
      assertEquals(1, peer.refusedNodeFrames(), "refused by the node's budget");
      assertEquals(0, peer.refusedFrames(), "not by the peer port's own, which had room");
      assertEquals(MAX_FRAME, peer.reservedBytes(), "the refused frame holds nothing");
      assertEquals(5L * MAX_FRAME, peer.nodeBudget().reservedBytes());
      assertTrue(
          warnings.all().stream().anyMatch(w -> w.contains("transport.nodeFrameBudgetBytes")),
          "the refusal is logged: " + warnings.all());
      assertTrue(fits.isConnected() && !fits.isClosed());
    }
    assertEquals(0, client.refusedNodeFrames() + client.refusedFrames());

    for (Socket s : clientFrames) {
      s.close();
    }
    Await.until(
        () -> client.nodeBudget().reservedBytes() == MAX_FRAME,
        DEADLINE,
        "closed client connections give the node's budget back");
    beginFrame(peers.localAddress());
    Await.until(() -> peer.reservedBytes() == 2L * MAX_FRAME, DEADLINE, "a peer frame fits again");
    assertEquals(1, peer.refusedNodeFrames());
  }

  @Test
  void portsOnOneSetOfLoops_mustAgreeOnTheNodesBudget() {
    loops.nodeFrameBudget(CONFIG);
    TransportConfig other =
        TransportConfig.builder(CLUSTER)
            .maxFrameBytes(MAX_FRAME)
            .nodeFrameBudgetBytes(6 * MAX_FRAME)
            .build();
    assertThrows(IllegalArgumentException.class, () -> loops.nodeFrameBudget(other));
    assertSame(loops.nodeFrameBudget(CONFIG), loops.nodeFrameBudget(CONFIG));
  }

  @Test
  void theNodesBudget_isAtLeastOneFrame() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            TransportConfig.builder(CLUSTER)
                .maxFrameBytes(MAX_FRAME)
                .nodeFrameBudgetBytes(MAX_FRAME - 1)
                .build());
  }

  /** A connection that declares a frame of {@link #MAX_FRAME} bytes and sends 1 KiB of it. */
  private Socket beginFrame(InetSocketAddress port) throws IOException {
    Socket s = new Socket();
    s.connect(port, (int) DEADLINE.toMillis());
    sockets.add(s);
    s.getOutputStream().write(ByteBuffer.allocate(4 + 1024).putInt(MAX_FRAME - 4).array());
    s.getOutputStream().flush();
    return s;
  }

  /** The server closes {@code s}: a read ends the stream (or the connection is reset). */
  private static void awaitClosedByServer(Socket s) throws IOException {
    s.setSoTimeout((int) DEADLINE.toMillis());
    InputStream in = s.getInputStream();
    try {
      assertEquals(-1, in.read(), "the server closed the connection");
    } catch (java.net.SocketException reset) {
      // closed with unread input on the server's side: a reset is a close too
    }
  }
}
