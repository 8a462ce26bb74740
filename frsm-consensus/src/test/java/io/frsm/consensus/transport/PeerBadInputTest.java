package io.frsm.consensus.transport;

import static io.frsm.consensus.transport.WireTesting.CLUSTER;
import static io.frsm.consensus.transport.WireTesting.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Message;
import io.frsm.consensus.transport.proto.PeerEnvelope;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input from a raw socket: each case closes that connection and logs why, delivers nothing, and
 * leaves the server serving a well-behaved peer afterwards.
 */
class PeerBadInputTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER).maxFrameBytes(64 * 1024).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private final Inbox inbox = new Inbox();
  private final List<String> warnings = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Handler logCapture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          if (r.getLevel().intValue() >= Level.WARNING.intValue()) {
            warnings.add(
                java.text.MessageFormat.format(
                    r.getMessage(), r.getParameters() == null ? new Object[0] : r.getParameters()));
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private NettyPeerTransport server;
  private NettyPeerTransport goodPeer;

  // Held strongly: java.util.logging keeps loggers weakly, and the leak check collects garbage.
  private final List<Logger> capturedLoggers =
      List.of(
          Logger.getLogger(FrameDecoder.class.getName()),
          Logger.getLogger(PeerInboundHandler.class.getName()));

  @BeforeEach
  void start() {
    capturedLoggers.forEach(l -> l.addHandler(logCapture));
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
    capturedLoggers.forEach(l -> l.removeHandler(logCapture));
  }

  private final PeerCodec codec = new PeerCodec(CLUSTER);

  private byte[] goodFrame() {
    return frame(codec.encode(3, PeerTransportLoopbackTest.numbered(3, 1)));
  }

  /** Sends {@code bytes}, optionally half-closes, and expects the server to close on us. */
  private void sendAndExpectClose(byte[] bytes, boolean halfClose, String logged)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(server.localAddress(), 5_000);
      socket.setSoTimeout((int) DEADLINE.toMillis());
      OutputStream out = socket.getOutputStream();
      out.write(bytes);
      out.flush();
      if (halfClose) {
        socket.shutdownOutput();
      }
      InputStream in = socket.getInputStream();
      try {
        assertEquals(-1, in.read(), "the server closed the connection");
      } catch (SocketTimeoutException e) {
        throw new AssertionError("the server kept the connection open", e);
      } catch (IOException reset) {
        // A reset is a close too.
      }
    }
    Await.until(
        () -> warnings.stream().anyMatch(w -> w.contains(logged)),
        DEADLINE,
        "a warning containing '" + logged + "' in " + warnings);
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
    byte[] bytes = {0, 0, 0, 4, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    sendAndExpectClose(bytes, false, "unparsable peer envelope");
  }

  @Test
  void truncatedFrameThenClose_isDroppedAndLogged() throws IOException {
    byte[] good = goodFrame();
    sendAndExpectClose(Arrays.copyOf(good, good.length - 5), true, "in the middle of a frame");
  }

  @Test
  void oversizedLengthPrefix_closesConnection() throws IOException {
    sendAndExpectClose(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, false, "exceeds");
  }

  @Test
  void wrongClusterId_closesConnection() throws IOException {
    PeerEnvelope foreign =
        new PeerCodec("another-cluster").encode(3, PeerTransportLoopbackTest.numbered(3, 1));
    sendAndExpectClose(frame(foreign), false, "another-cluster");
  }

  @Test
  void wrongProtocolVersion_closesConnection() throws IOException {
    PeerEnvelope future =
        codec.encode(3, PeerTransportLoopbackTest.numbered(3, 1)).toBuilder()
            .setProtocolVersion(WireFormat.PROTOCOL_VERSION + 1)
            .build();
    sendAndExpectClose(frame(future), false, "protocol version");
  }

  @Test
  void senderChangingMidConnection_closesConnection_afterTheFirstFrame() throws IOException {
    byte[] first = goodFrame(); // from node 3
    byte[] second = frame(codec.encode(4, PeerTransportLoopbackTest.numbered(4, 1)));
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
  }
}
