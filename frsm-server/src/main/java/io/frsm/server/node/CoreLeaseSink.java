package io.frsm.server.node;

import io.frsm.consensus.core.HandOffShipment;
import io.frsm.consensus.core.Input;
import io.frsm.server.stream.HandOffDesk;
import io.frsm.server.zk.HandOffLimits;
import io.frsm.server.zk.RangeLeadership;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Range leadership feeds the core through the core's own loop (docs/DESIGN.md "Lease invariant"):
 * every event becomes an {@link Input} of the shard that owns the range, so a lease is granted,
 * renewed and lost in the same order as the core's other inputs.
 */
final class CoreLeaseSink implements RangeLeadership.Sink {
  private final CoreShards core;
  private final boolean handsOff;
  private final HandOffDesk desk;
  private final Duration deliveryBound;
  private final HandOffLimits limits;

  CoreLeaseSink(CoreShards core) {
    this(core, null, Duration.ZERO, HandOffLimits.DEFAULT);
  }

  /**
   * @param desk where shipments go out (null: no hand-offs, every hand-over a plain release)
   * @param deliveryBound how long a delivery waits for the successor's acknowledgement
   * @param limits what hand-backs may drain
   */
  CoreLeaseSink(CoreShards core, HandOffDesk desk, Duration deliveryBound, HandOffLimits limits) {
    this.core = core;
    this.handsOff = desk != null;
    this.desk = desk;
    this.deliveryBound = deliveryBound;
    this.limits = limits;
  }

  @Override
  public HandOffLimits handOffLimits() {
    return limits;
  }

  @Override
  public boolean handsOff() {
    return handsOff;
  }

  @Override
  public CompletableFuture<HandOffShipment> handOff(
      int range, long term, int maxKeys, java.util.function.IntConsumer begun) {
    return core.handOff(range, term, maxKeys, begun);
  }

  @Override
  public CompletableFuture<Boolean> ship(int successor, HandOffShipment shipment) {
    return desk.ship(successor, shipment, deliveryBound);
  }

  @Override
  public void granted(int range, long term, boolean noEarlierLease) {
    core.input(new Input.TermGranted(range, term, noEarlierLease));
  }

  @Override
  public CompletableFuture<Boolean> release(int range, long term) {
    return core.releaseLease(range, term);
  }

  @Override
  public void renewed(int range, long term, long sentNanos) {
    core.input(new Input.LeaseRenewed(range, term, sentNanos));
  }

  @Override
  public void lost(int range) {
    core.input(new Input.LeaseLost(range));
  }

  @Override
  public void candidacy(int range, boolean candidate) {
    core.input(new Input.Candidacy(range, candidate));
  }
}
