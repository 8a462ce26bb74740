package io.frsm.server.node;

import io.frsm.consensus.core.Effect;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Carries the cores' quorum reports ({@link Effect.QuorumReachability}) to range leadership, which
 * starts after the cores: reports made before it listens are kept (as the set of ranges whose
 * quorum is unreachable now) and told when it does, so none is lost — a lost "unreachable" would
 * leave a cut-off leader in place, a lost "reachable" a node out of the competition for good.
 *
 * <p>Thread-safe: cores report from their threads; the listener is called under this object's
 * monitor, in report order, and must not block.
 */
final class RangeQuorums {
  /** Hears the ranges whose quorum became unreachable and those whose quorum became reachable. */
  interface Listener {
    void changed(Set<Integer> unreachable, Set<Integer> reachable);
  }

  private final Set<Integer> unreachable = new TreeSet<>();
  private Listener listener;

  /** One core's reports of one step, in order. */
  synchronized void report(List<Effect.QuorumReachability> reports) {
    Set<Integer> lost = new TreeSet<>();
    Set<Integer> regained = new TreeSet<>();
    for (Effect.QuorumReachability r : reports) {
      if (r.reachable()) {
        unreachable.remove(r.range());
        lost.remove(r.range());
        regained.add(r.range());
      } else {
        unreachable.add(r.range());
        regained.remove(r.range());
        lost.add(r.range());
      }
    }
    if (listener != null) {
      listener.changed(lost, regained);
    }
  }

  /** From now on {@code l} hears every report; it hears the ranges unreachable now at once. */
  synchronized void listen(Listener l) {
    listener = l;
    if (!unreachable.isEmpty()) {
      l.changed(Set.copyOf(unreachable), Set.of());
    }
  }
}
