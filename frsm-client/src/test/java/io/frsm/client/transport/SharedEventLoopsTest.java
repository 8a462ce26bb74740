package io.frsm.client.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SharedEventLoopsTest {
  // A thread count no other test of this JVM asks for, so the lease counts are this test's own.
  private static final int THREADS = 3;

  @Test
  void leasesOfOneThreadCount_shareLoops_untilTheLastIsClosed() throws Exception {
    assertEquals(0, SharedEventLoops.leases(THREADS));
    SharedEventLoops.Lease first = SharedEventLoops.acquire(THREADS);
    SharedEventLoops.Lease second = SharedEventLoops.acquire(THREADS);
    TransportEventLoops loops = first.loops();
    assertSame(loops, second.loops());
    assertEquals(THREADS, loops.loops().size());
    assertEquals(2, SharedEventLoops.leases(THREADS));

    first.close();
    assertEquals(1, SharedEventLoops.leases(THREADS));
    assertFalse(loops.group().isShuttingDown(), "the second lease still uses them");
    assertEquals(
        "ran", loops.group().next().submit(() -> "ran").get(5, TimeUnit.SECONDS), "still running");

    second.close();
    assertEquals(0, SharedEventLoops.leases(THREADS));
    assertTrue(loops.group().isShuttingDown(), "the last lease closed them");

    try (SharedEventLoops.Lease next = SharedEventLoops.acquire(THREADS)) {
      assertNotSame(loops, next.loops(), "fresh loops after the last lease went");
      assertFalse(next.loops().group().isShuttingDown());
    }
    assertEquals(0, SharedEventLoops.leases(THREADS));
  }

  @Test
  void aLeaseClosedTwice_isRefused_andCountsOnce() {
    SharedEventLoops.Lease keep = SharedEventLoops.acquire(THREADS + 1);
    SharedEventLoops.Lease lease = SharedEventLoops.acquire(THREADS + 1);
    lease.close();
    assertThrows(IllegalStateException.class, lease::close);
    assertEquals(1, SharedEventLoops.leases(THREADS + 1), "the other lease still counts");
    assertFalse(keep.loops().group().isShuttingDown());
    keep.close();
    assertEquals(0, SharedEventLoops.leases(THREADS + 1));
  }

  @Test
  void ownLoops_areNeitherShared_norCounted() {
    try (SharedEventLoops.Lease shared = SharedEventLoops.acquire(THREADS + 2)) {
      SharedEventLoops.Lease own = SharedEventLoops.own(THREADS + 2);
      assertNotSame(shared.loops(), own.loops());
      assertEquals(1, SharedEventLoops.leases(THREADS + 2));
      own.close(); // closes its loops, leaves the shared ones alone
      assertTrue(own.loops().group().isShuttingDown());
      assertFalse(shared.loops().group().isShuttingDown());
    }
    assertEquals(0, SharedEventLoops.leases(THREADS + 2));
  }
}
