package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.consensus.core.Message;
import io.frsm.transport.BadFrames.BadFrame;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input from a raw socket: each case closes that connection and logs why, delivers nothing, and
 * leaves the server serving a well-behaved peer afterwards. The cases are {@link BadFrames}';
 * {@code NodeBadInputIT} (frsm-server) sends the same ones to a running node.
 */
class PeerBadInputTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final Message PROBE = PeerTransportLoopbackTest.numbered(3, 1);

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER).maxFrameBytes(64 * 1024).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private final Inbox inbox = new Inbox();
  private TransportWarnings warnings;
  private NettyPeerTransport server;
  private NettyPeerTransport goodPeer;

  @BeforeEach
  void start() {
    warnings = TransportWarnings.capture();
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    server = NettyPeerTransport.start(1, loopback, addresses::get, inbox, config, loops);
    addresses.put(1, server.localAddress());
    goodPeer = NettyPeerTransport.start(2, loopback, addresses::get, new Inbox(), config, loops);
  }

  @AfterEach
  void stop() {
    goodPeer.close();
    server.close();
    loops.close();
    warnings.close();
  }

  /** Sends the case and expects the server to close on us, log why, and deliver nothing. */
  private void sendAndExpectClose(BadFrame bad) throws IOException {
    int port = BadFrames.sendExpectingClose(server.localAddress(), bad, DEADLINE);
    warnings.await(
        w -> w.contains(":" + port) && w.contains(bad.logged()),
        DEADLINE,
        "naming port " + port + " and containing '" + bad.logged() + "'");
    assertEquals(0, inbox.size(), "nothing reached the node");
    serverStillServesAGoodPeer();
  }

  private void serverStillServesAGoodPeer() {
    Message probe = PeerTransportLoopbackTest.numbered(2, 77);
    // One probe every few milliseconds until one arrives (peer messages are lossy while the
    // connection forms); not a busy loop, which starves the event loops on a loaded 2-core box.
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (inbox.size() == 0) {
      assertTrue(System.nanoTime() < end, "the good peer got through");
      goodPeer.send(1, probe);
      long pause = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(5);
      while (inbox.size() == 0 && System.nanoTime() < pause) {
        java.util.concurrent.locks.LockSupport.parkNanos(200_000);
      }
    }
    assertTrue(inbox.snapshot().stream().allMatch(d -> d.from() == 2 && d.message().equals(probe)));
  }

  @Test
  void malformedProtobuf_closesConnection() throws IOException {
    sendAndExpectClose(BadFrames.peerMalformed());
  }

  @Test
  void truncatedFrameThenClose_isDroppedAndLogged() throws IOException {
    sendAndExpectClose(BadFrames.peerTruncated(CLUSTER, 3, PROBE));
  }

  @Test
  void oversizedLengthPrefix_closesConnection() throws IOException {
    sendAndExpectClose(BadFrames.oversizedLengthPrefix());
  }

  @Test
  void wrongClusterId_closesConnection() throws IOException {
    sendAndExpectClose(BadFrames.peerWrongCluster(3, PROBE));
  }

  @Test
  void wrongProtocolVersion_closesConnection() throws IOException {
    sendAndExpectClose(BadFrames.peerWrongProtocolVersion(CLUSTER, 3, PROBE));
  }

  @Test
  void senderChangingMidConnection_closesConnection_afterTheFirstFrame() throws IOException {
    byte[] first = BadFrames.peerFrame(CLUSTER, 3, PROBE); // from node 3
    byte[] second = BadFrames.peerFrame(CLUSTER, 4, PeerTransportLoopbackTest.numbered(4, 1));
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    try (Socket socket = new Socket()) {
      socket.connect(server.localAddress(), 5_000);
      socket.setSoTimeout((int) DEADLINE.toMillis());
      socket.getOutputStream().write(both);
      assertEquals(-1, socket.getInputStream().read());
    }
    assertEquals(1, inbox.size(), "only the first frame was delivered");
    assertEquals(3, inbox.snapshot().get(0).from());
    warnings.await("sender changed from node 3 to node 4", DEADLINE);
  }
}
