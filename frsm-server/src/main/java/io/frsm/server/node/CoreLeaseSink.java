package io.frsm.server.node;

import io.frsm.consensus.core.Input;
import io.frsm.server.zk.RangeLeadership;
import java.util.concurrent.CompletableFuture;

/**
 * Range leadership feeds the core through the core's own loop (docs/DESIGN.md "Lease invariant"):
 * every event becomes an {@link Input} of the shard that owns the range, so a lease is granted,
 * renewed and lost in the same order as the core's other inputs.
 */
final class CoreLeaseSink implements RangeLeadership.Sink {
  private final CoreShards core;

  CoreLeaseSink(CoreShards core) {
    this.core = core;
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
