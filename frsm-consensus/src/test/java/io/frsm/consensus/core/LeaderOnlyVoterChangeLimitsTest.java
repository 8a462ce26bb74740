package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The limits of "A voter change in leader-only mode" (docs/PROTOCOL.md) have teeth: a holder keeps
 * the mode only across a change of one voter, and persists its term at the new voters before it
 * keeps it across the next. Each sabotage that lifts one limit serves a stale read in the scripted
 * scenario below, which the rule as built answers correctly.
 *
 * <p>The scenario needs a publisher that breaks RingTransition's rule 4 (versions published without
 * waiting for an installation quorum and a settle): under rule 4 the membership simulation never
 * reaches it (docs/PROTOCOL.md records the runs), because the quorum that installed a version
 * refuses the older version's term persist, and a holder must have installed each version to settle
 * it. So these limits are a second line behind rule 4, and this test is what shows each one matters
 * when the first line is missing.
 *
 * <p>Range 0 of one range, nodes 0–3. Version 0: voters {0, 1, 2}; version 1: {0, 1, 2, 3}; version
 * 2: {0, 1, 3} (two voters from version 0). Node 1 holds term 1, installs versions 1 and 2 at once
 * (as does node 3) and creates {@code k} at version 2, accepted by 1 and 3 only — a quorum of {0,
 * 1, 3}. Node 0, still at version 0, takes term 2: its persist and scan run at version 0's voters,
 * where node 1 refuses the old version and node 2 never saw {@code k}, so it enters leader-only
 * mode with {@code k} absent from its cell. Then it installs the newer versions.
 */
class LeaderOnlyVoterChangeLimitsTest {
  private static final Placement V0 = Placement.single(List.of(0, 1, 2));
  private static final Placement V1 = Placement.single(List.of(0, 1, 2, 3)).atVersion(1);
  private static final Placement V2 = Placement.single(List.of(0, 1, 3)).atVersion(2);
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final byte[] VALUE = "chosen-at-v2".getBytes(StandardCharsets.US_ASCII);

  @Test
  void twoVotersApartAtOnce_endsTheMode_andTheReadFindsTheValueChosenAtTheNewSet() {
    Scenario s = new Scenario(Set.of());
    s.install(0, V2); // two voters apart in one step
    assertEquals(Optional.of(s.written), s.read(), "read at the new voters after a re-scan");
  }

  @Test
  void keepingTheModeAcrossTwoVoters_isASabotage_thatServesAStaleRead() {
    Scenario s = new Scenario(Set.of(Sabotage.KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE));
    long leaderOnly = s.cluster.core(0).leaderOnlyReads();
    s.install(0, V2);
    assertEquals(Optional.empty(), s.read(), "stale: k was chosen at version 2");
    assertEquals(leaderOnly + 1, s.cluster.core(0).leaderOnlyReads(), "served leader-only");
  }

  @Test
  void oneVoterAtATime_withTheRePersistUnanswered_endsTheModeAtTheSecondChange() {
    Scenario s = new Scenario(Set.of());
    s.install(0, V1); // kept; the re-persist at {0, 1, 2, 3} gets only 0 and 2: nodes 1, 3 are at 2
    s.install(0, V2); // the re-persist is still open: the mode ends, the term persists at V2
    assertEquals(Optional.of(s.written), s.read());
  }

  @Test
  void keepingTheModeWithoutRePersisting_isASabotage_thatServesAStaleRead() {
    Scenario s = new Scenario(Set.of(Sabotage.KEEP_LEADER_ONLY_WITHOUT_REPERSIST));
    long leaderOnly = s.cluster.core(0).leaderOnlyReads();
    s.install(0, V1);
    s.install(0, V2); // no re-persist was ever sent, so none is open: kept again
    assertEquals(Optional.empty(), s.read(), "stale: k was chosen at version 2");
    assertEquals(leaderOnly + 1, s.cluster.core(0).leaderOnlyReads(), "served leader-only");
  }

  /** The scripted run up to node 0 in leader-only mode at version 0 (see the class comment). */
  private static final class Scenario {
    final CoreCluster cluster;
    final Versioned written;

    Scenario(Set<Sabotage> sabotage) {
      CoreConfig config =
          CoreConfig.builder(V0).leases(LeaseConfig.defaults()).sabotage(sabotage).build();
      cluster = new CoreCluster(4, config);
      cluster.input(1, new Input.TermGranted(0, 1, true)); // persisted at {0, 1, 2}, scanned
      cluster.input(1, new Input.LeaseRenewed(0, 1, cluster.now().monoNanos()));
      install(1, V1);
      install(3, V1);
      install(1, V2);
      install(3, V2);
      cluster.drop = (from, to, message) -> to == 0 || to == 2; // k reaches nodes 1 and 3 only
      long id = cluster.submit(1, new Operation.Create(K, VALUE));
      Outcome.Written w = assertInstanceOf(Outcome.Written.class, cluster.outcome(id));
      written = new Versioned(VALUE, w.version());
      cluster.drop = (from, to, message) -> false;
      assertNull(cluster.cell(0, K), "node 0 never saw k");
      assertNull(cluster.cell(2, K), "node 2 never saw k");

      // Node 1 hands the range over; node 0, at version 0, persists term 2 at {0, 2} and scans.
      cluster.input(1, new Input.ReleaseLease(0, 1));
      long scans = cluster.core(0).rangeScansCompleted();
      cluster.input(0, new Input.TermGranted(0, 2, true));
      cluster.input(0, new Input.LeaseRenewed(0, 2, cluster.now().monoNanos()));
      assertEquals(scans + 1, cluster.core(0).rangeScansCompleted(), "node 0 scanned at V0");
      long leaderOnly = cluster.core(0).leaderOnlyReads();
      assertEquals(Optional.empty(), read(), "k is not in the range at V0's voters 0 and 2");
      assertEquals(leaderOnly + 1, cluster.core(0).leaderOnlyReads(), "leader-only at V0");
    }

    void install(int node, Placement placement) {
      cluster.input(node, new Input.PlacementChanged(placement));
    }

    /** A get through node 0, with time moving on (and renewals) until it is answered. */
    Optional<Versioned> read() {
      long id = cluster.submit(0, new Operation.Get(K));
      for (int i = 0; i < 50 && cluster.outcome(id) == null; i++) {
        cluster.advance(10_000_000L);
        cluster.input(0, new Input.LeaseRenewed(0, 2, cluster.now().monoNanos()));
      }
      Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, cluster.outcome(id));
      return r.value();
    }
  }
}
