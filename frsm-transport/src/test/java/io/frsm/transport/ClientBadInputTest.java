package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.transport.BadFrames.BadFrame;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bad input on the client port from a raw socket: each case closes that connection and logs why,
 * never reaches the operation handler (so no state changes), and leaves the server answering a
 * well-behaved client afterwards. The peer port's twin is {@link PeerBadInputTest}; the cases are
 * {@link BadFrames}', which {@code NodeBadInputIT} (frsm-server) sends to a running node.
 */
class ClientBadInputTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
  private static final OperationRequest GET =
      new OperationRequest(new ClientOperation.Get(KeyBytes.of(new byte[] {'k'})), 0);

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER).maxFrameBytes(64 * 1024).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final AtomicInteger handled = new AtomicInteger();
  private TransportWarnings warnings;
  private ClientProtocolServer server;
  private ClientProtocolClient goodClient;

  @BeforeEach
  void start() {
    warnings = TransportWarnings.capture();
    server =
        ClientProtocolServer.start(
            LOOPBACK,
            request -> {
              handled.incrementAndGet();
              return CompletableFuture.completedFuture(
                  new OperationResponse.Completed(new ClientOutcome.ReadResult(Optional.empty())));
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
    warnings.close();
  }

  /** Sends the case and expects the server to close on us unanswered, log why, handle nothing. */
  private void sendAndExpectClose(BadFrame bad) throws Exception {
    int port = BadFrames.sendExpectingClose(server.localAddress(), bad, DEADLINE);
    warnings.await(
        w -> w.contains(":" + port) && w.contains(bad.logged()),
        DEADLINE,
        "naming port " + port + " and containing '" + bad.logged() + "'");
    assertEquals(0, handled.get(), "nothing reached the operation handler");
    serverStillServesAGoodClient();
  }

  private void serverStillServesAGoodClient() throws Exception {
    goodClient = ClientProtocolClient.connect(server.localAddress(), config, loops);
    OperationResponse r =
        goodClient.call(GET, DEADLINE).get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    assertInstanceOf(OperationResponse.Completed.class, r);
    assertEquals(1, handled.get());
  }

  @Test
  void malformedProtobuf_closesConnection() throws Exception {
    sendAndExpectClose(BadFrames.clientMalformed());
  }

  @Test
  void truncatedFrameThenClose_isDroppedAndLogged() throws Exception {
    sendAndExpectClose(BadFrames.clientTruncated(CLUSTER, GET));
  }

  @Test
  void oversizedLengthPrefix_closesConnection() throws Exception {
    sendAndExpectClose(BadFrames.oversizedLengthPrefix());
  }

  @Test
  void wrongClusterId_closesConnection() throws Exception {
    sendAndExpectClose(BadFrames.clientWrongCluster(GET));
  }

  @Test
  void wrongProtocolVersion_closesConnection() throws Exception {
    sendAndExpectClose(BadFrames.clientWrongProtocolVersion(CLUSTER, GET));
  }
}
