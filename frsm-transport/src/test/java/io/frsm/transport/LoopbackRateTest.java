package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RoundId;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Prints a one-way loopback message rate (Accept messages with 512-byte values, one sender thread).
 * Informational only: it never asserts speed. With paranoid leak detection on (as in every test
 * run) the figure is far below what production reaches.
 */
class LoopbackRateTest {

  @Test
  void printsLoopbackMessageRate() {
    TransportConfig config = TransportConfig.builder(CLUSTER).build();
    Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    AtomicLong received = new AtomicLong();
    InetSocketAddress loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    try (TransportEventLoops loops = TransportEventLoops.create(2, true);
        NettyPeerTransport sink =
            NettyPeerTransport.start(
                1,
                loopback,
                addresses::get,
                (from, m) -> received.incrementAndGet(),
                config,
                loops);
        NettyPeerTransport source =
            NettyPeerTransport.start(2, loopback, addresses::get, (from, m) -> {}, config, loops)) {
      addresses.put(1, sink.localAddress());
      byte[] value = new byte[512];
      Message accept =
          new Message.Accept(
              Key.of("some-key-0001".getBytes()),
              new RoundId(2, 1, 1),
              AcceptedValue.live(10, 11, new Ballot(1000, 2, 1), value, false));
      int warmup = 20_000;
      int measured = 100_000;
      sendAll(source, accept, warmup);
      Await.until(() -> received.get() == warmup, Duration.ofSeconds(60), "warm-up");
      long start = System.nanoTime();
      sendAll(source, accept, measured);
      Await.until(
          () -> received.get() == warmup + measured, Duration.ofSeconds(120), "measured run");
      double seconds = (System.nanoTime() - start) / 1e9;
      System.out.printf(
          "loopback peer transport (%s, leak detection %s): %d Accept messages of 512 B in %.2f s"
              + " = %.0f messages/s%n",
          loops.nativeEpoll() ? "epoll" : "nio",
          io.netty.util.ResourceLeakDetector.getLevel(),
          measured,
          seconds,
          measured / seconds);
    }
  }

  private static void sendAll(NettyPeerTransport source, Message m, int count) {
    for (int i = 0; i < count; i++) {
      while (!source.send(1, m)) {
        Thread.onSpinWait(); // backlog full: wait for the writer to catch up
      }
    }
  }
}
