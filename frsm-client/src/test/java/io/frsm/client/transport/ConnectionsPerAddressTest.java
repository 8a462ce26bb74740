package io.frsm.client.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The per-address accounting of a listening port's {@link InboundLimits}. */
class ConnectionsPerAddressTest {
  private static final InetAddress A = address(127, 0, 0, 1);
  private static final InetAddress B = address(127, 0, 0, 2);

  @Test
  void anAddressBeyondItsMaximum_isRefused_anotherIsNot_andACloseFreesAPlace() {
    ConnectionsPerAddress counts = new ConnectionsPerAddress(2);
    assertTrue(counts.open(A));
    assertTrue(counts.open(A));
    assertFalse(counts.open(A), "a third from A");
    assertTrue(counts.open(B), "B has its own count");
    assertEquals(3, counts.openFrom(A), "a refused connection counts until it is closed");

    counts.close(A); // the refused one
    assertEquals(2, counts.openFrom(A));
    assertFalse(counts.open(A), "A still holds two");
    counts.close(A);
    counts.close(A);
    assertTrue(counts.open(A), "a place freed");
  }

  @Test
  void anAddressWithNoOpenConnection_holdsNoEntry() {
    ConnectionsPerAddress counts = new ConnectionsPerAddress(1);
    for (int i = 0; i < 1000; i++) {
      counts.open(address(10, 0, i / 256, i % 256));
    }
    assertEquals(1000, counts.addresses());
    for (int i = 0; i < 1000; i++) {
      counts.close(address(10, 0, i / 256, i % 256));
    }
    assertEquals(0, counts.addresses(), "nothing left behind by closed connections");
  }

  @Test
  void aCloseWithoutItsOpen_isABug_notALargerAllowance() {
    ConnectionsPerAddress counts = new ConnectionsPerAddress(1);
    assertThrows(IllegalStateException.class, () -> counts.close(A));
    counts.open(A);
    counts.close(A);
    assertThrows(IllegalStateException.class, () -> counts.close(A));
    assertTrue(counts.open(A));
    assertFalse(counts.open(A), "the failed closes gave no extra place");
  }

  @Test
  void aMaximumBelowOne_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> new ConnectionsPerAddress(0));
    assertThrows(IllegalArgumentException.class, () -> new ConnectionsPerAddress(-5));
  }

  @Test
  void concurrentOpensAndCloses_admitExactlyTheMaximum() throws Exception {
    int max = 50;
    ConnectionsPerAddress counts = new ConnectionsPerAddress(max);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> opened = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        opened.add(pool.submit(() -> counts.open(A)));
      }
      int admitted = 0;
      for (Future<Boolean> f : opened) {
        admitted += f.get() ? 1 : 0;
      }
      assertEquals(max, admitted);
      List<Future<?>> closed = new ArrayList<>();
      for (int i = 0; i < 400; i++) {
        closed.add(pool.submit(() -> counts.close(A)));
      }
      for (Future<?> f : closed) {
        f.get();
      }
      assertEquals(0, counts.openFrom(A));
      assertEquals(0, counts.addresses());
    } finally {
      pool.shutdownNow();
    }
  }

  private static InetAddress address(int a, int b, int c, int d) {
    try {
      return InetAddress.getByAddress(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }
}
