package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import java.util.function.IntConsumer;
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
    assertTrue(hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet));
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
    assertTrue(hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet));
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
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
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
    // Shipped before the hand-off waits on it: the drain's own bound can never win the race.
    sink.drain.complete(shipment());
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
    runPosted();
    runPosted(); // the delivery's bound ran out
    assertEquals(1, releases.get());
    assertEquals(1, hb.counts().notAcknowledged());
  }

  @Test
  void termEndedDuringTheDrain_isNotReleased() throws InterruptedException {
    RangeHandBack hb = handBack(NEVER);
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
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
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
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
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
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
    assertFalse(
        hb.begin(RANGE, SELF, true, "test", releases::incrementAndGet), "self as successor");
    assertFalse(hb.begin(RANGE, -1, true, "test", releases::incrementAndGet), "successor unknown");
    assertFalse(hb.begin(RANGE + 1, SUCCESSOR, true, "test", releases::incrementAndGet), "no term");
    sink.handsOff = false;
    assertFalse(
        hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet), "hand-offs off");
    assertEquals(0, hb.counts().begun());
    assertTrue(posted.isEmpty());
  }

  // ---- The node-wide drain budget and the absence limit ----------------------------------------

  /** Holds term {@link #TERM} of {@code range} too (granted at {@code grantedAtNanos}). */
  private void hold(int range) {
    held.put(range, new TermGrant("r" + range, TERM, SELF, 3, 0, false));
  }

  /** The ask of {@code range}'s core (the latest), or null if it was not asked. */
  private Asked askOf(int range) {
    Asked found = null;
    for (Asked a : sink.asked) {
      if (a.range == range) {
        found = a;
      }
    }
    return found;
  }

  /** The core began {@code range}'s drain with {@code keys} keys; runs what that posts. */
  private void begun(int range, int keys) throws InterruptedException {
    askOf(range).begun.accept(keys);
    runPosted();
  }

  @Test
  void budget_aHandOffThatDoesNotFitWhatIsLeft_isAskedWithTheRest_andDeclinedAtOnce()
      throws InterruptedException {
    sink.limits = new HandOffLimits(10, 20, Duration.ofMinutes(30));
    RangeHandBack hb = handBack(NEVER);
    hold(20);
    hold(21);
    AtomicInteger released21 = new AtomicInteger();
    assertTrue(hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet));
    assertEquals(10, askOf(RANGE).maxKeys, "a full cap while the budget has it");
    begun(RANGE, 8);
    assertTrue(hb.begin(20, SUCCESSOR, true, "test", () -> {}));
    assertEquals(10, askOf(20).maxKeys);
    begun(20, 10);
    assertEquals(18, hb.drainBudgetInUse());
    assertTrue(hb.begin(21, SUCCESSOR, true, "test", released21::incrementAndGet));
    assertEquals(2, askOf(21).maxKeys, "asked with what is left, never more");
    // The core wrote 5 keys of range 21 in the term: more than 2, so it declines in the same step.
    askOf(21).drain.completeExceptionally(new HandOffDeclined(21, TERM, 5));
    runPosted();
    assertEquals(1, released21.get(), "released plainly at once");
    assertFalse(hb.underWay(21));
    HandBackCounts c = hb.counts();
    assertEquals(1, c.declinedBudget());
    assertEquals(0, c.declined(), "not the per-range cap");
    assertEquals(18, hb.drainBudgetInUse(), "the declined hand-off's share came back");
    // Over the per-range cap it is the cap's decline, whatever the budget.
    sink.drain.completeExceptionally(new HandOffDeclined(RANGE, TERM, 11));
    runPosted();
    assertEquals(1, hb.counts().declined());
  }

  @Test
  void budget_whileAsksAreOutstanding_aHandOffWaitsForTheirAnswers_insteadOfDeclining()
      throws InterruptedException {
    sink.limits = new HandOffLimits(10, 20, Duration.ofMinutes(30));
    RangeHandBack hb = handBack(NEVER);
    hold(20);
    hold(21);
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
    hb.begin(20, SUCCESSOR, true, "test", () -> {});
    assertEquals(20, hb.drainBudgetInUse(), "two full caps asked, not answered yet");
    assertTrue(hb.begin(21, SUCCESSOR, true, "test", () -> {}));
    assertTrue(hb.underWay(21), "under way: the latch stays");
    assertNull(askOf(21), "not asked while the budget is held by asks outstanding");
    begun(RANGE, 1);
    assertNull(askOf(21), "9 left and an ask outstanding: still waits");
    begun(20, 1);
    assertEquals(10, askOf(21).maxKeys, "asked once the answers freed a full cap");
    assertEquals(12, hb.drainBudgetInUse());
  }

  @Test
  void budget_comesBack_whenTheDrainEndsInAnyWay() throws InterruptedException {
    sink.limits = new HandOffLimits(10, 20, Duration.ofMinutes(30));
    // Shipped (and the delivery still under way: the drain is over, its budget back).
    RangeHandBack hb = handBack(NEVER);
    hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet);
    begun(RANGE, 4);
    assertEquals(4, hb.drainBudgetInUse());
    sink.drain.complete(shipment());
    runPosted();
    assertTrue(hb.underWay(RANGE), "delivering");
    assertEquals(0, hb.drainBudgetInUse(), "shipped: given back");
    // Given up after the bound.
    hold(20);
    RangeHandBack bounded =
        new RangeHandBack(SELF, held::get, sink, Duration.ofMillis(20), posted::add, clock::get);
    bounded.begin(20, SUCCESSOR, true, "test", () -> {});
    askOf(20).begun.accept(6);
    runPosted(); // the begun answer and the bound running out, in either order
    runPosted();
    assertEquals(0, bounded.drainBudgetInUse(), "given up: given back");
    assertEquals(1, bounded.counts().withoutShipment());
    // The term ended another way during the drain.
    hold(21);
    hb.begin(21, SUCCESSOR, true, "test", () -> {});
    begun(21, 7);
    held.remove(21);
    askOf(21).drain.complete(null);
    runPosted();
    assertEquals(0, hb.drainBudgetInUse(), "term ended: given back");
    // Forgotten (the node stops), before the core answered at all.
    hold(22);
    hb.begin(22, SUCCESSOR, true, "test", () -> {});
    assertEquals(10, hb.drainBudgetInUse());
    hb.forget(22);
    assertEquals(0, hb.drainBudgetInUse(), "forgotten: given back at once");
    askOf(22).begun.accept(3); // a late answer takes nothing
    runPosted();
    askOf(22).drain.complete(null);
    runPosted();
    assertEquals(0, hb.drainBudgetInUse());
  }

  @Test
  void budget_aDrainBegunOverItsCap_isABug() {
    DrainBudget budget = new DrainBudget(20, 10);
    DrainBudget.Share s = budget.take();
    assertThrows(IllegalStateException.class, () -> budget.begun(s, 11));
    assertThrows(IllegalArgumentException.class, () -> new DrainBudget(5, 10));
  }

  @Test
  void absence_aHandBackAfterALongInterimTerm_isDeclined_aStepDownIsNot() {
    sink.limits = new HandOffLimits(256, 512, Duration.ofMinutes(30));
    RangeHandBack hb = handBack(NEVER); // granted at 0 on the scripted clock
    clock.set(Duration.ofMinutes(30).toNanos());
    assertTrue(hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet), "30 min");
    hb.forget(RANGE);
    clock.set(Duration.ofMinutes(30).toNanos() + 1);
    assertFalse(
        hb.begin(RANGE, SUCCESSOR, true, "test", releases::incrementAndGet),
        "longer than the absence limit: the caller releases plainly");
    assertEquals(1, hb.counts().declinedAbsence());
    assertEquals(1, sink.asked.size(), "the core was not asked again");
    assertTrue(
        hb.begin(RANGE, SUCCESSOR, false, "test", releases::incrementAndGet),
        "a step-down drains whatever its term's age: it sets the returning node's base");
  }

  /** One ask of the core: its cap, and the drain's answers the test gives. */
  private static final class Asked {
    final int range;
    final long term;
    final int maxKeys;
    final IntConsumer begun;
    final CompletableFuture<HandOffShipment> drain;

    Asked(
        int range,
        long term,
        int maxKeys,
        IntConsumer begun,
        CompletableFuture<HandOffShipment> drain) {
      this.range = range;
      this.term = term;
      this.maxKeys = maxKeys;
      this.begun = begun;
      this.drain = drain != null ? drain : new CompletableFuture<>();
    }
  }

  /** The core and the stream, as futures the test completes. */
  private static final class FakeSink implements RangeLeadership.Sink {
    volatile boolean handsOff = true;
    volatile HandOffLimits limits = HandOffLimits.DEFAULT;
    final List<Asked> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
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
    public HandOffLimits handOffLimits() {
      return limits;
    }

    @Override
    public CompletableFuture<HandOffShipment> handOff(
        int range, long term, int maxKeys, IntConsumer begun) {
      Asked a = new Asked(range, term, maxKeys, begun, range == RANGE ? drain : null);
      asked.add(a);
      if (range == RANGE) {
        drainAskedFor = term;
      }
      return a.drain;
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
