package io.frsm.consensus.transport;

import static io.frsm.consensus.transport.WireTesting.CLUSTER;
import static io.frsm.consensus.transport.WireTesting.frame;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.transport.proto.ClientEnvelope;
import io.frsm.lsm.cell.Key;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input on the client port from a raw socket: each case closes that connection and logs why,
 * never reaches the operation handler (so no state changes), and leaves the server answering a
 * well-behaved client afterwards. The peer port's twin is {@link PeerBadInputTest}.
 */
class ClientBadInputTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER).maxFrameBytes(64 * 1024).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final AtomicInteger handled = new AtomicInteger();
  private final List<String> warnings = new CopyOnWriteArrayList<>();
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

  // Held strongly: java.util.logging keeps loggers weakly, and the leak check collects garbage.
  private final List<Logger> capturedLoggers =
      List.of(
          Logger.getLogger(FrameDecoder.class.getName()),
          Logger.getLogger(ClientProtocolServer.class.getName()));

  private ClientProtocolServer server;
  private ClientProtocolClient goodClient;

  @BeforeEach
  void start() {
    capturedLoggers.forEach(l -> l.addHandler(logCapture));
    server =
        ClientProtocolServer.start(
            LOOPBACK,
            request -> {
              handled.incrementAndGet();
              return CompletableFuture.completedFuture(
                  new OperationResponse.Completed(new Outcome.ReadResult(Optional.empty())));
            },
            config,
            loops);
  }

  @AfterEach
  void stop() {
    if (goodClient != null) {
      goodClient.close();
    }
    server.close();
    loops.close();
    capturedLoggers.forEach(l -> l.removeHandler(logCapture));
  }

  private static ClientEnvelope request(String clusterId) {
    return new ClientCodec(clusterId, ClientCodec.Side.CLIENT)
        .encodeRequest(1, new OperationRequest(new Operation.Get(Key.of(new byte[] {'k'})), 0));
  }

  /** Sends {@code bytes}, optionally half-closes, and expects the server to close on us. */
  private void sendAndExpectClose(byte[] bytes, boolean halfClose, String logged) throws Exception {
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
        assertEquals(-1, in.read(), "the server closed the connection without answering");
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
    assertEquals(0, handled.get(), "nothing reached the operation handler");
    serverStillServesAGoodClient();
  }

  private void serverStillServesAGoodClient() throws Exception {
    goodClient = ClientProtocolClient.connect(server.localAddress(), config, loops);
    OperationResponse r =
        goodClient
            .call(new OperationRequest(new Operation.Get(Key.of(new byte[] {'k'})), 0), DEADLINE)
            .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    assertInstanceOf(OperationResponse.Completed.class, r);
    assertEquals(1, handled.get());
  }

  @Test
  void malformedProtobuf_closesConnection() throws Exception {
    byte[] bytes = {0, 0, 0, 4, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
    sendAndExpectClose(bytes, false, "unparsable client envelope");
  }

  @Test
  void truncatedFrameThenClose_isDroppedAndLogged() throws Exception {
    byte[] good = frame(request(CLUSTER));
    sendAndExpectClose(Arrays.copyOf(good, good.length - 3), true, "in the middle of a frame");
  }

  @Test
  void oversizedLengthPrefix_closesConnection() throws Exception {
    sendAndExpectClose(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff}, false, "exceeds");
  }

  @Test
  void wrongClusterId_closesConnection() throws Exception {
    sendAndExpectClose(frame(request("another-cluster")), false, "another-cluster");
  }

  @Test
  void wrongProtocolVersion_closesConnection() throws Exception {
    ClientEnvelope future =
        request(CLUSTER).toBuilder().setProtocolVersion(WireFormat.PROTOCOL_VERSION + 1).build();
    sendAndExpectClose(frame(future), false, "protocol version");
  }
}
