package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.transport.OutboundConnection;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A dialed connection's back-off across failed attempts, a connect and a lost connection. */
class OutboundConnectionTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER)
          .reconnectBackoffMin(Duration.ofMillis(2))
          .reconnectBackoffMax(Duration.ofMillis(20))
          .build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final AtomicReference<InetSocketAddress> target = new AtomicReference<>();
  private OutboundConnection connection;

  @AfterEach
  void stop() {
    if (connection != null) {
      connection.close("test over");
    }
    loops.close();
  }

  @Test
  void successfulConnect_resetsTheBackoff() throws Exception {
    connection =
        new OutboundConnection(
            "peer under test", target::get, loops, config, p -> {}, c -> {}, n -> {});
    connection.connect();
    // No address yet: every attempt fails and the back-off grows.
    Await.until(() -> connection.failuresSinceConnected() >= 4, DEADLINE, "failed attempts");

    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listener.setSoTimeout((int) DEADLINE.toMillis());
      target.set((InetSocketAddress) listener.getLocalSocketAddress());
      try (Socket accepted = listener.accept()) {
        Await.until(() -> connection.failuresSinceConnected() == 0, DEADLINE, "the back-off reset");
        // Lose the connection with nowhere to redial: the count grows again...
        target.set(null);
        accepted.close();
        Await.until(() -> connection.failuresSinceConnected() >= 3, DEADLINE, "failed redials");
      }
      // ...and the next successful connect resets it once more.
      target.set((InetSocketAddress) listener.getLocalSocketAddress());
      try (Socket again = listener.accept()) {
        Await.until(() -> connection.failuresSinceConnected() == 0, DEADLINE, "reset after redial");
        assertEquals(0, connection.failuresSinceConnected());
      }
    }
  }

  @Test
  void redialNow_skipsTheBackoffWait_whenThePeerReappears() throws Exception {
    // A back-off so long that only redialNow can connect within the deadline.
    TransportConfig slow =
        TransportConfig.builder(CLUSTER)
            .reconnectBackoffMin(Duration.ofMillis(600_000))
            .reconnectBackoffMax(Duration.ofMillis(600_000))
            .build();
    connection =
        new OutboundConnection(
            "restarted peer", target::get, loops, slow, p -> {}, c -> {}, n -> {});
    connection.connect();
    Await.until(() -> connection.failuresSinceConnected() >= 1, DEADLINE, "a failed attempt");
    try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listener.setSoTimeout((int) DEADLINE.toMillis());
      target.set((InetSocketAddress) listener.getLocalSocketAddress());
      connection.redialNow();
      try (Socket accepted = listener.accept()) {
        Await.until(() -> connection.failuresSinceConnected() == 0, DEADLINE, "connected");
      }
    }
  }
}
