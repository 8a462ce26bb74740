package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Input;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * docs/PROTOCOL.md "A key the scan cannot settle": a new holder's scan read must re-commit a key's
 * newest value M at M's own instance (a scan never moves a version), and a live voter holding a
 * lower-ballot leftover one instance above M can never take a lower instance. With the other live
 * voters short of {@code q} — three voters with one dead for good, or four (a replace's raised set,
 * the dead node still a voter) with one dead — no attempt can succeed. Before the fix the scan
 * retried the key forever: the range never entered leader-only mode and the operations pulled
 * behind the scan's reads never ran. Now the scan leaves the key unsettled after {@link
 * io.frsm.consensus.core.CoreStats#keysSkippedByScan its attempts}; a client's get settles it by a
 * round (a mutating read, whose quench goes above the leftover), after which the key is served
 * leader-only again.
 */
class BlockedScanTest {
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final LeaseConfig LEASES = LeaseConfig.defaults();
  private Simulation sim;

  @Test
  void fourVoters() {
    blocked(4);
  }

  @Test
  void threeVoters() {
    blocked(3);
  }

  private void blocked(int n) {
    sim =
        new Simulation(
            1,
            FaultMix.exact(n, 100, 50),
            Simulation.simConfig(n).toBuilder().leases(LEASES).build(),
            1_000_000);
    sim.setLeaseAgent((node, effect) -> {});
    grant(0, 1);
    sim.runUntil(() -> sim.rangeScansCompleted(0) == 1, 10_000_000_000L, "node 0 scanned");
    Version v0 =
        assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(KEY, b("x0"))))
            .version();
    // v1 chosen at all four, but its commits never reach 1, 2, 3: their cells do not know it.
    sim.setFilter((from, to, m) -> m instanceof Message.Commit && to != 0);
    Version v1 =
        assertInstanceOf(Outcome.Written.class, run(0, new Operation.Cas(KEY, v0, b("x1"))))
            .version();
    // Node 0's next CAS reaches only its own acceptor: a leftover at v2 under node 0's ballot.
    sim.setFilter(
        (from, to, m) ->
            (m instanceof Message.Commit && to != 0)
                || (from == 0 && to != 0 && m instanceof Message.Accept));
    Outcome[] lost = {null};
    sim.call(0, new Operation.Cas(KEY, v1, b("x2")), 300_000_000L, (o, t) -> lost[0] = o);
    sim.runUntil(() -> lost[0] != null, sim.nowNanos() + 10_000_000_000L, "the lost CAS");
    assertInstanceOf(Outcome.Unknown.class, lost[0]);
    sim.setFilter((from, to, m) -> false);

    // Node 1 takes over: its scan settles the key at {1, 2, 3} without node 0 (node 0 silent).
    sim.setFilter(
        (from, to, m) -> ((from == 0 || to == 0) && from != to) || m instanceof Message.Commit);
    sim.setLocalFilter((from, to, m) -> m instanceof Message.Commit);
    grant(1, 2);
    sim.runUntil(() -> sim.rangeScansCompleted(1) >= 1, sim.nowNanos() + 20_000_000_000L, "scan 1");
    sim.setFilter((from, to, m) -> false);
    sim.setLocalFilter((from, to, m) -> false);
    assertTrue(
        sim.durableCell(0, KEY).accepted().compareInstance(sim.durableCell(1, KEY).accepted()) > 0,
        "the leftover above M at node 0: " + cells());

    // Node 3 dies for good; node 2 takes over. Its scan must settle the key with 0, 1 and 2.
    sim.stopForGood(n - 1);
    int next = n == 4 ? 2 : 1;
    long before = sim.rangeScansCompleted(next);
    grant(next, 3);
    sim.runUntil(
        () -> sim.rangeScansCompleted(next) > before,
        sim.nowNanos() + 30_000_000_000L,
        "node " + next + "'s scan");
    assertEquals(1, sim.stats(next).keysSkippedByScan(), "the blocked key left unsettled");
    Outcome.ReadResult get =
        assertInstanceOf(Outcome.ReadResult.class, run(next, new Operation.Get(KEY)));
    assertEquals("x1", new String(get.value().orElseThrow().value(), StandardCharsets.US_ASCII));
    assertTrue(get.value().orElseThrow().version().compareTo(v1) > 0, "above the leftover");
    // Settled by that round: the next get is served from the leader's cell.
    long leaderOnly = sim.leaderOnlyReads();
    Outcome.ReadResult again =
        assertInstanceOf(Outcome.ReadResult.class, run(next, new Operation.Get(KEY)));
    assertEquals(get.value().orElseThrow().version(), again.value().orElseThrow().version());
    assertEquals(leaderOnly + 1, sim.leaderOnlyReads(), "served leader-only once settled");
  }

  private String cells() {
    StringBuilder s = new StringBuilder();
    for (int i = 0; i < sim.nodeCount(); i++) {
      s.append(" n")
          .append(i)
          .append('=')
          .append(sim.isStopped(i) ? "dead" : sim.durableCell(i, KEY));
    }
    return s.toString();
  }

  private void grant(int node, long term) {
    sim.input(node, new Input.TermGranted(0, term, true));
    ScriptedRenewals.renewEvery(sim, LEASES, node, term);
  }

  private Outcome run(int node, Operation op) {
    Outcome[] result = {null};
    sim.submit(node, op, o -> result[0] = o);
    sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "reply to " + op);
    return result[0];
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
