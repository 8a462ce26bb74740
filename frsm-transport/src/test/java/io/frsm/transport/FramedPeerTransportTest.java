package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.WireFormat;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FramedPeerTransport} with a second protocol ({@link EchoWireCodec}, strings): the same
 * delivery guarantees as frsm's, and two protocols refuse each other's frames by their header or
 * their body.
 */
class FramedPeerTransportTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress ANY_LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
  private static final int ECHO_VERSION = 7;

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER)
          .reconnectBackoffMin(Duration.ofMillis(5))
          .reconnectBackoffMax(Duration.ofMillis(50))
          .build();
  private final TransportEventLoops loops = TransportEventLoops.create(2, true);
  private final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
  private final List<AutoCloseable> transports = new ArrayList<>();
  // The frame decoder warns at most once a second across connections; each refusal is at DEBUG,
  // which TransportWarnings captures.
  private TransportWarnings warnings;

  @BeforeEach
  void captureLogs() {
    warnings = TransportWarnings.capture();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable t : transports) {
      t.close();
    }
    loops.close();
    warnings.close();
  }

  /** Collects delivered strings per sender. Thread-safe. */
  private static final class Texts implements FramedPeerTransport.InboundHandler<String> {
    private final Map<Integer, List<String>> bySender = new ConcurrentHashMap<>();

    @Override
    public void onMessage(int fromNodeId, String message) {
      bySender.computeIfAbsent(fromNodeId, n -> new CopyOnWriteArrayList<>()).add(message);
    }

    List<String> from(int node) {
      return bySender.getOrDefault(node, List.of());
    }

    int total() {
      return bySender.values().stream().mapToInt(List::size).sum();
    }
  }

  private FramedPeerTransport<String> echo(int node, int version, Texts inbox) {
    FramedPeerTransport<String> t =
        FramedPeerTransport.start(
            node, ANY_LOOPBACK, addresses::get, new EchoWireCodec(version), inbox, config, loops);
    addresses.put(node, t.localAddress());
    transports.add(t);
    return t;
  }

  private NettyPeerTransport frsm(int node, Inbox inbox) {
    NettyPeerTransport t =
        NettyPeerTransport.start(node, ANY_LOOPBACK, addresses::get, inbox, config, loops);
    addresses.put(node, t.localAddress());
    transports.add(t);
    return t;
  }

  @Test
  void secondProtocol_deliversEverything_inOrderPerSender() throws InterruptedException {
    Texts inbox1 = new Texts();
    Texts inbox2 = new Texts();
    FramedPeerTransport<String> one = echo(1, ECHO_VERSION, inbox1);
    FramedPeerTransport<String> two = echo(2, ECHO_VERSION, inbox2);
    int count = 5_000;
    Thread other = new Thread(() -> sendNumbered(two, 1, "b", count));
    other.start();
    sendNumbered(one, 2, "a", count);
    other.join();
    Await.until(() -> inbox1.total() == count && inbox2.total() == count, DEADLINE, "all messages");
    for (int i = 0; i < count; i++) {
      assertEquals("a" + i, inbox2.from(1).get(i));
      assertEquals("b" + i, inbox1.from(2).get(i));
    }
    assertEquals(0, one.droppedMessages() + two.droppedMessages());
  }

  private static void sendNumbered(FramedPeerTransport<String> t, int to, String tag, int count) {
    for (int i = 0; i < count; i++) {
      while (!t.send(to, tag + i)) {
        Thread.onSpinWait(); // backlog full: a node would drop; here retry
      }
    }
  }

  @Test
  void frsmFrames_toAnEchoPort_areRefusedByVersion() {
    Texts echoInbox = new Texts();
    echo(1, ECHO_VERSION, echoInbox);
    FramedPeerTransport<String> goodEcho = echo(2, ECHO_VERSION, new Texts());
    NettyPeerTransport intruder = frsm(3, new Inbox());
    intruder.send(1, PeerTransportLoopbackTest.numbered(3, 1));
    warnings.await("protocol version 1, this node speaks 7", DEADLINE);
    probeUntilDelivered(() -> goodEcho.send(1, "probe"), echoInbox::total);
    assertTrue(echoInbox.from(3).isEmpty(), "nothing of node 3 was delivered");
  }

  @Test
  void echoFrames_toAnFrsmPort_areRefusedByTheMissingBody_evenAtTheSameVersion() {
    Inbox frsmInbox = new Inbox();
    frsm(1, frsmInbox);
    NettyPeerTransport goodPeer = frsm(2, new Inbox());
    // Version 1 is frsm's too: the header passes and the frsm body decoder sees no known field.
    FramedPeerTransport<String> intruder = echo(3, WireFormat.PROTOCOL_VERSION, new Texts());
    intruder.send(1, "not a Paxos message");
    warnings.await("peer envelope without a (known) message body", DEADLINE);
    probeUntilDelivered(
        () -> goodPeer.send(1, PeerTransportLoopbackTest.numbered(2, 9)), frsmInbox::size);
    assertTrue(frsmInbox.from(3).isEmpty(), "nothing of node 3 was delivered");
  }

  /** Re-sends a probe every few milliseconds until something arrives (peer sends are lossy). */
  private static void probeUntilDelivered(Runnable send, java.util.function.IntSupplier delivered) {
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (delivered.getAsInt() == 0) {
      assertTrue(System.nanoTime() < end, "the probe got through");
      send.run();
      long pause = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
      while (delivered.getAsInt() == 0 && System.nanoTime() < pause) {
        LockSupport.parkNanos(200_000);
      }
    }
  }
}
