package io.frsm.consensus.sim;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.lsm.cell.Key;
import java.util.List;

/**
 * The driver's side of DESIGN.md "Lease invariant" rule 5: when a node's core asks for a scan
 * ({@link Effect.ScanRange}, its term is durable at {@code q} replicas), read every key any replica
 * of the range holds through that node, then feed {@link Input.RangeScanned}. A scan that fails (a
 * read not answered) is retried; one that outlives the node's incarnation is dropped.
 */
public final class RangeScanDriver {
  private static final long RETRY_NANOS = 5_000_000L;
  private final Simulation sim;
  private final Placement placement;
  private long scans;

  public RangeScanDriver(Simulation sim) {
    this.sim = sim;
    this.placement = sim.coreConfig().placement();
  }

  public void install() {
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.ScanRange scan) {
            int incarnation = sim.incarnation(node);
            sim.schedule(0, () -> scan(node, incarnation, scan));
          }
        });
  }

  public long scans() {
    return scans;
  }

  private void scan(int node, int incarnation, Effect.ScanRange scan) {
    if (!sim.isUp(node) || sim.incarnation(node) != incarnation) {
      return;
    }
    List<Key> keys =
        sim.storedKeys().stream().filter(k -> placement.rangeOf(k) == scan.range()).toList();
    int[] pending = {keys.size()};
    boolean[] failed = {false};
    Runnable finished =
        () -> {
          if (failed[0]) {
            sim.schedule(RETRY_NANOS, () -> scan(node, incarnation, scan));
          } else if (sim.incarnation(node) == incarnation) {
            scans++;
            sim.input(node, new Input.RangeScanned(scan.range(), scan.term()));
          }
        };
    if (keys.isEmpty()) {
      finished.run();
      return;
    }
    for (Key key : keys) {
      long id =
          sim.submit(
              node,
              new Operation.Get(key),
              outcome -> {
                failed[0] |= !(outcome instanceof Outcome.ReadResult);
                if (--pending[0] == 0) {
                  finished.run();
                }
              });
      if (id < 0) {
        return; // the node is down
      }
    }
  }
}
