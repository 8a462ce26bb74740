package io.frsm.testkit.sim;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the clients of a scripted hand-off scenario were told: the keys it starts from (preloaded,
 * chosen everywhere), each key's last acknowledged value and version, the writes that move them on,
 * and the check that a node serves every key as last acknowledged. Shared by {@link
 * HandOffScenario} and {@link DurableBaseScenario}, whose runs it must not change: it submits and
 * preloads in the order they did.
 */
final class AcknowledgedWrites {
  private final Simulation sim;
  private final Map<Key, byte[]> acked = new LinkedHashMap<>();
  private final Map<Key, Version> versions = new LinkedHashMap<>();

  AcknowledgedWrites(Simulation sim) {
    this.sim = sim;
  }

  /**
   * Keys {@code k-0 .. k-<count-1>}, each with value {@code v0-<i>} chosen at version (1, 1):
   * accepted at every one of the three nodes, then known chosen there, and acknowledged.
   *
   * @return the keys in order
   */
  List<Key> preloadChosen(int count) {
    List<Key> all = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Key key = Key.of(("k-" + i).getBytes(StandardCharsets.US_ASCII));
      byte[] value = ("v0-" + i).getBytes(StandardCharsets.US_ASCII);
      AcceptedValue v = AcceptedValue.live(1, 1, new Ballot(1, 0, 0), value, false);
      for (AcceptedValue a : List.of(v, v.withChosen(true))) {
        for (int n = 0; n < 3; n++) {
          sim.preload(n, Cell.accepted(key, a, 0));
        }
      }
      all.add(key);
      acked.put(key, value);
      versions.put(key, new Version(1, 1));
    }
    return all;
  }

  /** The key's last acknowledged value. */
  byte[] last(Key key) {
    return acked.get(key);
  }

  /** Every key's last acknowledged value. */
  Collection<byte[]> values() {
    return acked.values();
  }

  /**
   * A CAS at {@code node} from the key's last acknowledged version, to {@code tag-key}; remembered
   * if written. {@code pending[0]} counts the writes not answered yet.
   */
  void write(int node, Key key, String tag, int[] pending) {
    pending[0]++;
    byte[] value = (tag + "-" + key).getBytes(StandardCharsets.US_ASCII);
    sim.submit(
        node,
        new Operation.Cas(key, versions.get(key), value),
        o -> {
          pending[0]--;
          if (o instanceof Outcome.Written w) {
            acked.put(key, value);
            versions.put(key, w.version());
          }
        });
  }

  /**
   * Reads every key at node 0 (leader-only where it may): how many differ from the last
   * acknowledged; the first such in {@code first[0]}.
   */
  long staleReadsAtNode0(List<Key> all, String[] first) {
    long[] stale = {0};
    int[] reads = {all.size()};
    for (Key key : all) {
      sim.submit(
          0,
          new Operation.Get(key),
          o -> {
            reads[0]--;
            byte[] got =
                o instanceof Outcome.ReadResult r
                    ? r.value().map(Versioned::value).orElse(null)
                    : null;
            if (!(o instanceof Outcome.ReadResult) || !Arrays.equals(got, acked.get(key))) {
              stale[0]++;
              if (first[0] == null) {
                first[0] = key + " read " + o + ", last acknowledged " + text(acked.get(key));
              }
            }
          });
    }
    sim.runUntil(() -> reads[0] == 0, sim.nowNanos() + 3_600_000_000_000L, "node 0's reads");
    return stale[0];
  }

  private static String text(byte[] b) {
    return b == null ? "absent" : new String(b, StandardCharsets.US_ASCII);
  }
}
