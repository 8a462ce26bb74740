package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import io.frsm.consensus.core.HandOffShipment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link RangeHandBack} on its own (docs/PROTOCOL.md "Hand-off instead of a scan", "In the
 * server"): a fake sink answers the drain and the delivery, a map stands for the held terms, and
 * the "event thread" is this test, which runs what the hand-back posts. Each path ends with the
 * plain release run exactly once, or — the term ended another way — not at all.
 */
class RangeHandBackTest {
  private static final int SELF = 2;
  private static final int SUCCESSOR = 1;
  private static final int RANGE = 7;
  private static final long TERM = 12;

  /** Long enough never to fire in a test that does not wait for it. */
  private static final Duration NEVER = Duration.ofHours(1);

  private static final Duration DEADLINE = Duration.ofSeconds(30);

  private final Map<Integer, TermGrant> held = new ConcurrentHashMap<>();
  private final BlockingQueue<Runnable> posted = new LinkedBlockingQueue<>();
  private final AtomicLong clock = new AtomicLong(1_000);
  private final AtomicInteger releases = new AtomicInteger();
  private final FakeSink sink = new FakeSink();
  private final TermGrant grant = new TermGrant("r" + RANGE, TERM, SELF, 3, 0, false);

  private RangeHandBack handBack(Duration bound) {
    held.put(RANGE, grant);
    return new RangeHandBack(SELF, held::get, sink, bound, posted::add, clock::get);
  }

  private static HandOffShipment shipment() {
    Key k = Key.of("k".getBytes(StandardCharsets.UTF_8));
    return new HandOffShipment(RANGE, TERM, List.of(new HandOffShipment.Entry(k, null)));
  }

  /** Runs the next task the hand-back posts (waiting for it up to the deadline). */
  private void runPosted() throws InterruptedException {
    Runnable r = posted.poll(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
    assertNotNull(r, "the hand-back posted nothing within " + DEADLINE);
    r.run();
  }

  @Test
  void shipped_isDelivered_thenReleasedOnceAcknowledged() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER);
    assertTrue(hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet));
    assertTrue(hb.underWay(RANGE));
    assertEquals(TERM, sink.drainAskedFor);

    clock.addAndGet(5_000_000); // the drain takes 5 ms
    HandOffShipment s = shipment();
    sink.drain.complete(s);
    runPosted();
    assertEquals(SUCCESSOR, sink.shippedTo, "delivered to the successor");
    assertEquals(s, sink.shipped);
    assertEquals(0, releases.get(), "no release before the acknowledgement");
    assertTrue(hb.underWay(RANGE), "the latch stays while the delivery is under way");

    sink.delivery.complete(true);
    runPosted();
    assertEquals(1, releases.get());
    assertFalse(hb.underWay(RANGE));
    HandBackCounts c = hb.counts();
    assertEquals(1, c.begun());
    assertEquals(1, c.shipped());
    assertEquals(1, c.keysShipped());
    assertEquals(1, c.acknowledged());
    assertEquals(0, c.withoutShipment() + c.notAcknowledged() + c.declined());
    assertEquals(5_000_000, c.drainNanos(), "drain timed from the hand-off to the shipment");
    assertEquals(5_000_000, c.drainNanosMax());
  }

  @Test
  void noShipmentWithinTheBound_releasesPlainly() throws InterruptedException {
    RangeHandBack hb = handBack(Duration.ofMillis(20));
    assertTrue(hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet));
    runPosted(); // the bound ran out: the drain never answered
    assertEquals(1, releases.get());
    assertNull(sink.shipped, "nothing delivered");
    assertFalse(hb.underWay(RANGE));
    assertEquals(1, hb.counts().withoutShipment());
    assertEquals(0, hb.counts().drainNanos(), "a drain given up is not timed");
  }

  @Test
  void notAcknowledged_releasesAnyway() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER);
    hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet);
    sink.drain.complete(shipment());
    runPosted();
    sink.delivery.complete(false); // refused, unreachable, or no answer in time
    runPosted();
    assertEquals(1, releases.get());
    assertFalse(hb.underWay(RANGE));
    assertEquals(1, hb.counts().shipped());
    assertEquals(1, hb.counts().notAcknowledged());
    assertEquals(0, hb.counts().acknowledged());
  }

  @Test
  void deliveryNeverAnswered_releasesAfterTheBound() throws InterruptedException {
    RangeHandBack hb = handBack(Duration.ofMillis(20));
    hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet);
    sink.drain.complete(shipment());
    runPosted();
    runPosted(); // the delivery's bound ran out
    assertEquals(1, releases.get());
    assertEquals(1, hb.counts().notAcknowledged());
  }

  @Test
  void termEndedDuringTheDrain_isNotReleased() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER);
    hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet);
    held.remove(RANGE); // lease or latch lost meanwhile
    sink.drain.complete(shipment());
    runPosted();
    assertEquals(0, releases.get(), "a term that ended another way is not released again");
    assertNull(sink.shipped, "nor shipped");
    assertFalse(hb.underWay(RANGE));
  }

  @Test
  void termEndedDuringTheDelivery_isNotReleased() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER);
    hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet);
    sink.drain.complete(shipment());
    runPosted();
    held.put(RANGE, new TermGrant("r" + RANGE, TERM + 1, SELF, 4, 0, false)); // a newer grant
    sink.delivery.complete(true);
    runPosted();
    assertEquals(0, releases.get());
    assertFalse(hb.underWay(RANGE));
  }

  @Test
  void declined_releasesPlainlyAtOnce() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER); // a wait for the bound would hang the test
    hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet);
    sink.drain.completeExceptionally(new HandOffDeclined(RANGE, TERM, 5_000));
    runPosted();
    assertEquals(1, releases.get(), "released at once, without waiting for the bound");
    assertNull(sink.shipped);
    assertFalse(hb.underWay(RANGE));
    HandBackCounts c = hb.counts();
    assertEquals(1, c.declined());
    assertEquals(0, c.withoutShipment(), "counted as declined, not as a drain given up");
    assertEquals(0, c.shipped());
  }

  @Test
  void handOffsOff_orNoTerm_orNoSuccessor_startNothing() {
    RangeHandBack hb = handBack(NEVER);
    assertFalse(hb.begin(RANGE, SELF, "test", releases::incrementAndGet), "self as successor");
    assertFalse(hb.begin(RANGE, -1, "test", releases::incrementAndGet), "successor unknown");
    assertFalse(hb.begin(RANGE + 1, SUCCESSOR, "test", releases::incrementAndGet), "no term");
    sink.handsOff = false;
    assertFalse(hb.begin(RANGE, SUCCESSOR, "test", releases::incrementAndGet), "hand-offs off");
    assertEquals(0, hb.counts().begun());
    assertTrue(posted.isEmpty());
  }

  /** The core and the stream, as futures the test completes. */
  private static final class FakeSink implements RangeLeadership.Sink {
    volatile boolean handsOff = true;
    final CompletableFuture<HandOffShipment> drain = new CompletableFuture<>();
    final CompletableFuture<Boolean> delivery = new CompletableFuture<>();
    volatile long drainAskedFor;
    volatile int shippedTo = -1;
    volatile HandOffShipment shipped;

    @Override
    public boolean handsOff() {
      return handsOff;
    }

    @Override
    public CompletableFuture<HandOffShipment> handOff(int range, long term) {
      drainAskedFor = term;
      return drain;
    }

    @Override
    public CompletableFuture<Boolean> ship(int successor, HandOffShipment shipment) {
      shippedTo = successor;
      shipped = shipment;
      return delivery;
    }

    @Override
    public void granted(int range, long term, boolean noEarlierLease) {}

    @Override
    public CompletableFuture<Boolean> release(int range, long term) {
      throw new AssertionError("the hand-back releases through the runnable it is given");
    }

    @Override
    public void renewed(int range, long term, long sentNanos) {}

    @Override
    public void lost(int range) {}

    @Override
    public void candidacy(int range, boolean candidate) {}
  }
}
