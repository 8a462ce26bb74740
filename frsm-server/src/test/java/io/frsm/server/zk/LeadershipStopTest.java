package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LeadershipStop}'s sequence over a scripted leadership (docs/PROTOCOL.md "A graceful stop
 * hands off"): the node drops out, its hand-offs run as events on the event thread, the stop waits
 * at most the stop wait, releases the rest, and counts each range held at the stop once — handed
 * off (the meter {@code frsm.shutdown.ranges{outcome=handed_off}}) only if the core shipped the
 * term held at the stop, released otherwise.
 */
class LeadershipStopTest {
  /** Terms held at the stop: ranges 1, 2, 3. */
  private static final Map<Integer, Long> HELD = Map.of(1, 5L, 2, 7L, 3, 9L);

  private final ExecutorService events = Executors.newSingleThreadExecutor();

  @AfterEach
  void stopEvents() {
    events.shutdownNow();
  }

  @Test
  void beforeTheStop_notBegun_handOffsAllowed() {
    Scripted leadership = new Scripted(r -> {});
    LeadershipStop stop = leadership.stop(Duration.ofSeconds(5));
    assertFalse(stop.begun());
    assertTrue(stop.mayHandOff());
    assertEquals(0, stop.handedOff());
    assertEquals(0, stop.released());
  }

  @Test
  void peersReachable_shippedRangesCountedHandedOff_theRestReleased() {
    // Ranges 1 and 3 ship the term held at the stop and release; range 2's drain is declined (no
    // shipment), so the rest of the stop releases it plainly.
    Scripted leadership = shipping(Map.of(1, 5L, 3, 9L));
    LeadershipStop stop = leadership.runStop(Duration.ofMinutes(10), true);
    assertEquals(2, stop.handedOff(), "ranges shipped at the stop");
    assertEquals(1, stop.released(), "the rest");
    assertEquals(List.of(2), leadership.releasedPlainly, "released by the rest of the stop");
    assertTrue(leadership.droppedOutWithHandOffs, "dropped out with hand-offs allowed");
    assertEquals(1, leadership.shutDowns.get());
  }

  @Test
  void cutOffFromPeers_noShipmentWithinTheWait_everyRangeReleased() {
    // The drains never end (no quorum): the stop waits its bound, then releases every range.
    Scripted leadership = new Scripted(l -> {});
    LeadershipStop stop = leadership.runStop(Duration.ofMillis(200), true);
    assertEquals(0, stop.handedOff());
    assertEquals(3, stop.released());
    assertEquals(List.of(1, 2, 3), leadership.releasedPlainly);
    assertEquals(Set.of(), leadership.underWay, "every drain still running ended by the release");
  }

  @Test
  void shippedAnEarlierTermOnly_notHandedOff() {
    // Range 1's shipment went out in an earlier term, not the one held at the stop.
    Scripted leadership = shipping(Map.of(1, 4L, 2, 7L, 3, 9L));
    LeadershipStop stop = leadership.runStop(Duration.ofMinutes(10), true);
    assertEquals(2, stop.handedOff());
    assertEquals(1, stop.released());
  }

  @Test
  void withoutHandOver_plainReleaseAtOnce() {
    // A failed core ships nothing: no wait, no hand-off begins, every range released plainly.
    Scripted leadership = new Scripted(l -> l.shipAndRelease(1, 5L));
    LeadershipStop stop = leadership.runStop(Duration.ofMinutes(10), false);
    assertFalse(leadership.droppedOutWithHandOffs, "a hand-off allowed at a plain stop");
    assertEquals(0, stop.handedOff());
    assertEquals(3, stop.released());
    assertEquals(List.of(1, 2, 3), leadership.releasedPlainly);
  }

  @Test
  void aTermStillHeldAfterTheStop_isRefused() {
    Scripted leadership = new Scripted(l -> {});
    leadership.keepsOneTerm = true;
    LeadershipStop stop = leadership.stop(Duration.ZERO);
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () -> stop.run(true, leadership.shutDowns::incrementAndGet));
    assertTrue(e.getMessage().contains("still holding 1 term(s)"), e.getMessage());
    assertEquals(1, leadership.shutDowns.get(), "shut down before the check");
  }

  /**
   * A leadership whose hand-offs, in range order, each ship the term {@code shippedTerms} names for
   * its range and release it; a range it does not name ends its drain without a shipment and stays
   * held (the rest of the stop releases it).
   */
  private Scripted shipping(Map<Integer, Long> shippedTerms) {
    return new Scripted(
        l -> {
          for (int range : new TreeMap<>(HELD).keySet()) {
            Long term = shippedTerms.get(range);
            if (term != null) {
              l.shipAndRelease(range, term);
            } else {
              l.endWithoutShipment(range);
            }
          }
        });
  }

  /** What the hand-offs do once the node dropped out, each step an event of its own. */
  private interface Script {
    void run(Scripted leadership);
  }

  /** A leadership holding {@link #HELD}, its hand-offs run by a script on the event thread. */
  private final class Scripted implements LeadershipStop.Leadership {
    final Map<Integer, Long> held = new TreeMap<>(HELD);
    final Set<Integer> underWay = new HashSet<>();
    final Map<Integer, Long> shippedTerms = new HashMap<>();
    final List<Integer> releasedPlainly = new java.util.ArrayList<>();
    final AtomicInteger shutDowns = new AtomicInteger();
    final Script script;
    LeadershipStop stop;
    boolean droppedOutWithHandOffs;
    boolean keepsOneTerm;

    Scripted(Script script) {
      this.script = script;
    }

    LeadershipStop stop(Duration wait) {
      stop = new LeadershipStop(1, wait, this::post, this);
      return stop;
    }

    /**
     * The stop over this leadership with {@code wait}, run to its end ({@link LeadershipStop#run}).
     */
    LeadershipStop runStop(Duration wait, boolean handOver) {
      LeadershipStop s = stop(wait);
      s.run(handOver, shutDowns::incrementAndGet);
      return s;
    }

    /** The event thread: each task, then the stop's check, as RangeLeadership posts. */
    void post(Runnable task) {
      events.execute(
          () -> {
            task.run();
            stop.afterEvent();
          });
    }

    void shipAndRelease(int range, long term) {
      post(
          () -> {
            shippedTerms.put(range, term);
            held.remove(range);
            underWay.remove(range);
          });
    }

    void endWithoutShipment(int range) {
      post(() -> underWay.remove(range));
    }

    @Override
    public Map<Integer, Long> heldTerms() {
      return new TreeMap<>(held);
    }

    @Override
    public void dropOut() {
      assertTrue(stop.begun(), "dropped out before the stop began");
      droppedOutWithHandOffs = stop.mayHandOff();
      if (droppedOutWithHandOffs) { // else every range is released plainly: no hand-off begins
        underWay.addAll(held.keySet());
        script.run(this);
      }
    }

    @Override
    public boolean handingOff(int range) {
      return underWay.contains(range);
    }

    @Override
    public boolean shipped(int range, long term) {
      return Long.valueOf(term).equals(shippedTerms.get(range));
    }

    @Override
    public void releaseRest() {
      releasedPlainly.addAll(held.keySet());
      underWay.clear();
      held.clear();
      if (keepsOneTerm) {
        held.put(1, 5L);
      }
    }

    @Override
    public int termsHeld() {
      return held.size();
    }
  }
}
