package io.frsm.server.zk;

import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * How this node gives up, on purpose, a range whose latch it holds (a hand-back to the preferred
 * holder, a step-down, a graceful stop): by a hand-off — the core drains, its shipment goes to the
 * successor, then the release ({@link RangeHandBack}, docs/PROTOCOL.md "Hand-off instead of a
 * scan") — when hand-offs are on and the stop lets them run, else by a plain release at once.
 * Either way the release is the latch's on-purpose leave ({@link RangeLatches#leave}: the core ends
 * the lease, the release mark if clean, then the latch is left).
 *
 * <p>It exists so that {@link RangeLeadership} only decides which ranges to give up and why: the
 * hand-back agent's start, its budget and bounds, its counts and its end at a stop are wired here,
 * and {@link LeadershipStop} learns from here which hand-offs are under way and which terms
 * shipped.
 *
 * <p>The leadership's event thread only, but for {@link #counts}.
 */
final class RangeHandOvers {
  private final RangeLatches latches;
  private final LeadershipStop stop;
  private final IntConsumer rejoinLater;
  private final RangeHandBack handBack;

  /**
   * @param lease the bound of a drain and of a delivery ({@link RangeHandBack})
   * @param post runs a task on the leadership's event thread (where the agent's futures come back)
   * @param stop whether a hand-off may still begin ({@link LeadershipStop#mayHandOff})
   * @param rejoinLater after a hand-off's release: competes again later if preferred again
   */
  RangeHandOvers(
      int self,
      HeldTerms held,
      HandOffSink sink,
      Duration lease,
      Consumer<Runnable> post,
      RangeLatches latches,
      LeadershipStop stop,
      IntConsumer rejoinLater) {
    this.latches = latches;
    this.stop = stop;
    this.rejoinLater = rejoinLater;
    this.handBack = new RangeHandBack(self, held, sink, lease, post);
  }

  /**
   * How long a graceful stop waits for its hand-offs ({@link HandOffLimits#stopWait}): zero without
   * hand-offs, where every range is released plainly.
   */
  static Duration stopWait(HandOffSink sink) {
    return sink.handsOff() ? sink.handOffLimits().stopWait() : Duration.ZERO;
  }

  /** Whether {@code range}'s hand-off is under way: its latch stays joined until it ends. */
  boolean underWay(int range) {
    return handBack.underWay(range);
  }

  /**
   * Gives {@code range} up to {@code successor} (-1: no replica is preferred): hands it off if the
   * agent takes it, else releases it plainly now.
   *
   * @param returning a hand-back to a node that comes back (the absence limit applies), not a
   *     step-down nor a stop
   * @param why what the logs say
   */
  void handOver(int range, int successor, boolean returning, String why) {
    Runnable release =
        () -> {
          latches.leave(range, why, true);
          rejoinLater.accept(range); // preferred again meanwhile? then it competes again
        };
    if (!stop.mayHandOff() || !handBack.begin(range, successor, returning, why, release)) {
      latches.leave(range, why, true);
    }
  }

  /** Whether the core shipped {@code range}'s term {@code term} to a successor. */
  boolean shipped(int range, long term) {
    return handBack.shipped(range, term);
  }

  /**
   * The end of a stop: releases every range still joined plainly; a drain under way ends with that
   * release (its budget comes back first).
   */
  void releaseAll(String why) {
    for (int range : latches.joinedRanges()) {
      handBack.forget(range);
      latches.leave(range, why, true);
    }
  }

  /** This node's hand-backs with a shipment so far. Any thread. */
  HandBackCounts counts() {
    return handBack.counts();
  }
}
