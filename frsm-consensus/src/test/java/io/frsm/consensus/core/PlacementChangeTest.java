package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** {@link Input.PlacementChanged}: what a core accepts, and what it keeps and drops. */
class PlacementChangeTest {
  private static final Placement ONE_RANGE = Placement.single(List.of(0, 1, 2));

  /** Range 0 holds the negative tokens, range 1 the rest; both on nodes 0, 1, 2. */
  private static final Placement TWO_RANGES = Placement.splitAt(List.of(0L), List.of(0, 1, 2));

  private static final Key K = Key.of(b("k"));
  private static final Key K2 = Key.of(b("k2"));
  private static final Key IN_RANGE_0 = keyInRange(0);
  private static final Key IN_RANGE_1 = keyInRange(1);

  private static final long HEDGE_NANOS = CoreConfig.DEFAULT_HEDGE_DELAY.toNanos();

  // ---- What a core accepts -----------------------------------------------------------------

  @Test
  void placementWithAnotherRangeCount_isRefused() {
    CoreCluster cluster = new CoreCluster(3, CoreConfig.defaults(ONE_RANGE));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> cluster.input(0, new Input.PlacementChanged(TWO_RANGES.atVersion(1))));
    assertTrue(e.getMessage().contains("1 ranges now, 2 in the new one"), e.getMessage());
  }

  @Test
  void placementWithOtherRangeBoundaries_isRefused_andChangesNothing() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(TWO_RANGES));
    Placement otherCut = Placement.splitAt(List.of(5L), List.of(0, 1, 3)).atVersion(1);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> cluster.input(0, new Input.PlacementChanged(otherCut)));
    assertTrue(e.getMessage().contains("range 0 ends at token -1 now, at 4"), e.getMessage());
    long id = cluster.submit(0, new Operation.Create(IN_RANGE_0, b("v")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(id));
    assertEquals(Set.of(1), peersSentTo(cluster, IN_RANGE_0), "still the old set {0, 1, 2}");
  }

  @Test
  void sameMembers_inAnotherOrder_isNoChange() {
    PlacementChange reordered =
        PlacementChange.between(
            TWO_RANGES,
            Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(2, 1, 0), List.of(0, 1, 3)))
                .atVersion(1));
    assertTrue(!reordered.replicasChanged(0));
    assertTrue(reordered.replicasChanged(1));
  }

  // ---- Runs --------------------------------------------------------------------------------

  /**
   * Before ring versions a run in flight finished at its old set (chosen at {0, 2} here). Now the
   * new set's nodes refuse its old-version rounds, and it prepares again at the new set.
   */
  @Test
  void runInFlight_isRefusedForItsOldRingVersion_andPreparesAgainAtTheNewSet_laterRunsTakeIt() {
    CoreCluster cluster = new CoreCluster(5, CoreConfig.defaults(ONE_RANGE));
    cluster.drop = (from, to, m) -> to == 1; // the create's first quorum {0, 1} cannot answer
    long create = cluster.submit(0, new Operation.Create(K, b("v")));
    long queuedGet = cluster.submit(0, new Operation.Get(K));
    assertEquals(Set.of(1), peersSentTo(cluster, K));

    changePlacement(cluster, Placement.single(List.of(0, 3, 4)).atVersion(1));
    cluster.advance(HEDGE_NANOS); // the hedge widens the old round to node 2, which refuses it
    cluster.advance(CoreConfig.DEFAULT_BACKOFF_MAX.toNanos()); // then it prepares at {0, 3, 4}
    Outcome written = cluster.outcome(create);
    assertInstanceOf(Outcome.Written.class, written);
    assertNull(cluster.cell(2, K), "node 2 installed version 1 and refused the old round");
    assertTrue(cluster.core(2).stats().staleRingRefused() >= 1);
    assertTrue(cluster.core(0).stats().staleRingReplies() >= 1);
    assertTrue(cluster.cell(3, K) != null || cluster.cell(4, K) != null, "chosen at the new set");

    // The get was queued behind the create, so it started after the change: it reads the new set.
    assertTrue(peersSentTo(cluster, K).containsAll(Set.of(3, 4)));
    assertNotNull(cluster.outcome(queuedGet));

    cluster.drop = (from, to, m) -> false;
    cluster.sent.clear();
    long later = cluster.submit(0, new Operation.Create(K2, b("w")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(later));
    assertEquals(Set.of(3), peersSentTo(cluster, K2), "a new run's first quorum is {0, 3}");
    assertNull(cluster.cell(1, K2));
    assertNull(cluster.cell(2, K2));
  }

  @Test
  void warmKeysOfAChangedRange_turnCold_ofAnUnchangedRange_stayWarm() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(TWO_RANGES));
    Version a = created(cluster, IN_RANGE_0);
    Version b = created(cluster, IN_RANGE_1);
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 3), List.of(0, 2, 1)))
            .atVersion(1));
    cluster.sent.clear();
    cluster.submit(0, new Operation.Cas(IN_RANGE_0, a, b("a2")));
    cluster.submit(0, new Operation.Cas(IN_RANGE_1, b, b("b2")));
    assertTrue(prepared(cluster, IN_RANGE_0), "range 0's set changed: its key is cold");
    assertTrue(!prepared(cluster, IN_RANGE_1), "range 1's set is the same: its key is warm");
  }

  /**
   * A key prepared at {0, 1, 2} stays warm when a voter is added ({0, 1, 2, 3}: every majority of
   * four meets the promising majority of three) and its CAS goes out as accepts only, written at
   * the new set; a further change to {0, 1, 3} is two voters from the prepare set, so the key turns
   * cold there and prepares — unless a round at {0, 1, 2, 3} prepared it again, which makes it warm
   * at the set one away.
   */
  @Test
  void warmKey_staysWarmAcrossOneVoterChange_notTwoFromItsPrepareSet() {
    CoreCluster cluster = new CoreCluster(4, CoreConfig.defaults(TWO_RANGES));
    Version a = created(cluster, IN_RANGE_0);
    Version b = created(cluster, IN_RANGE_1);
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 2, 3), List.of(0, 1, 2)))
            .atVersion(1));
    cluster.sent.clear();
    long cas = cluster.submit(0, new Operation.Cas(IN_RANGE_0, a, b("a2")));
    assertEquals(new Outcome.Written(a.next()), cluster.outcome(cas));
    assertTrue(!prepared(cluster, IN_RANGE_0), "one voter added: still warm, no prepare");
    assertTrue(
        cluster.sent.stream()
            .anyMatch(
                s ->
                    s.message() instanceof Message.Accept accept
                        && accept.key().equals(IN_RANGE_0)
                        && accept.ringVersion() == 1),
        "the warm accepts carry the new version");

    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 3), List.of(0, 1, 2, 3)))
            .atVersion(2));
    cluster.sent.clear();
    long cold = cluster.submit(0, new Operation.Cas(IN_RANGE_0, a.next(), b("a3")));
    assertEquals(new Outcome.Written(a.next().next()), cluster.outcome(cold));
    assertTrue(prepared(cluster, IN_RANGE_0), "two voters from the prepare set: cold");
    cluster.sent.clear();
    long warmAgain = cluster.submit(0, new Operation.Cas(IN_RANGE_0, a.next().next(), b("a4")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(warmAgain));
    assertTrue(!prepared(cluster, IN_RANGE_0), "prepared at {0, 1, 3}: warm again");

    // Range 1 went {0, 1, 2} -> {0, 1, 2} -> {0, 1, 2, 3}: one voter from its prepare set.
    cluster.sent.clear();
    long other = cluster.submit(0, new Operation.Cas(IN_RANGE_1, b, b("b2")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(other));
    assertTrue(!prepared(cluster, IN_RANGE_1), "one voter added to range 1: warm");
  }

  @Test
  void identicalPlacement_changesNothing() {
    CoreCluster cluster = new CoreCluster(3, CoreConfig.defaults(TWO_RANGES));
    Version v = created(cluster, IN_RANGE_0);
    Placement copy =
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 2), List.of(0, 1, 2)));
    assertEquals(List.of(), cluster.core(0).step(cluster.now(), new Input.PlacementChanged(copy)));
    cluster.sent.clear();
    long id = cluster.submit(0, new Operation.Cas(IN_RANGE_0, v, b("w")));
    assertEquals(new Outcome.Written(v.next()), cluster.outcome(id));
    assertTrue(!prepared(cluster, IN_RANGE_0), "still warm");
  }

  // ---- Leases ------------------------------------------------------------------------------

  @Test
  void changedRange_endsAsOnALostLease_thenComesBackAtTheNewSet_unchangedRangeServesOn() {
    CoreConfig config = CoreConfig.builder(TWO_RANGES).leases(LeaseConfig.defaults()).build();
    CoreCluster cluster = new CoreCluster(4, config);
    for (int range = 0; range < 2; range++) {
      cluster.input(0, new Input.TermGranted(range, 1, true)); // persist, scan, leader-only
      renew(cluster, range);
    }
    assertEquals(2, cluster.core(0).rangeScansCompleted());
    created(cluster, IN_RANGE_0);
    created(cluster, IN_RANGE_1);
    assertLeaderOnly(cluster, IN_RANGE_0, true);
    assertLeaderOnly(cluster, IN_RANGE_1, true);
    long renewedBeforeChange = cluster.now().monoNanos();

    cluster.advance(1_000);
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 3), List.of(0, 1, 2)))
            .atVersion(1));
    assertLeaderOnly(cluster, IN_RANGE_1, true);
    assertLeaderOnly(cluster, IN_RANGE_0, false);
    // As on a lost lease, a renewal sent before the change does not bring it back.
    cluster.input(0, new Input.LeaseRenewed(0, 1, renewedBeforeChange));
    assertLeaderOnly(cluster, IN_RANGE_0, false);

    // The next tick persists the term again, at the new set, and the range is scanned there; a
    // renewal sent after the change brings the lease back, and with it leader-only reads.
    cluster.sent.clear();
    cluster.advance(1_000);
    Set<Integer> persistedAt = new TreeSet<>();
    cluster.sent.stream()
        .filter(s -> s.from() == 0 && s.message() instanceof Message.TermPersist)
        .forEach(s -> persistedAt.add(s.to()));
    assertEquals(Set.of(0, 1, 3), persistedAt);
    assertEquals(3, cluster.core(0).rangeScansCompleted());
    assertLeaderOnly(cluster, IN_RANGE_0, false);
    renew(cluster, 0);
    assertLeaderOnly(cluster, IN_RANGE_0, true);
  }

  @Test
  void
      oneVoterAddedOrRemoved_inLeaderOnlyMode_keepsTheModeAndLease_andPersistsTheTermAtTheNewSet() {
    CoreConfig config = CoreConfig.builder(TWO_RANGES).leases(LeaseConfig.defaults()).build();
    CoreCluster cluster = new CoreCluster(4, config);
    for (int range = 0; range < 2; range++) {
      cluster.input(0, new Input.TermGranted(range, 1, true));
      renew(cluster, range);
    }
    created(cluster, IN_RANGE_0);
    assertLeaderOnly(cluster, IN_RANGE_0, true);

    // Node 3 joins range 0's voters: the mode, the lease and the scan's result stand, no new scan,
    // and the term is persisted again at the four voters.
    cluster.sent.clear();
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 2, 3), List.of(0, 1, 2)))
            .atVersion(1));
    assertLeaderOnly(cluster, IN_RANGE_0, true);
    assertEquals(Set.of(0, 1, 2, 3), termPersistedAt(cluster));
    cluster.advance(1_000);
    assertEquals(2, cluster.core(0).rangeScansCompleted(), "no new scan");
    assertLeaderOnly(cluster, IN_RANGE_0, true);

    // Node 2 leaves them (the re-persist at {0, 1, 2, 3} answered): still leader-only, writes go
    // to the new set at once, without waiting for a renewal.
    cluster.sent.clear();
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 3), List.of(0, 1, 2)))
            .atVersion(2));
    assertLeaderOnly(cluster, IN_RANGE_0, true);
    assertEquals(Set.of(0, 1, 3), termPersistedAt(cluster));
    long id = cluster.submit(0, new Operation.Create(keyInRange(0, "other-"), b("w")));
    assertInstanceOf(Outcome.Written.class, cluster.outcome(id));
    assertEquals(2, cluster.core(0).rangeScansCompleted());
  }

  @Test
  void voterChange_whileTheLastRePersistIsOpen_endsTheModeAsBefore() {
    CoreConfig config = CoreConfig.builder(TWO_RANGES).leases(LeaseConfig.defaults()).build();
    CoreCluster cluster = new CoreCluster(4, config);
    cluster.input(0, new Input.TermGranted(0, 1, true));
    renew(cluster, 0);
    created(cluster, IN_RANGE_0);
    assertLeaderOnly(cluster, IN_RANGE_0, true);
    // The re-persist at the raised set never gets an answer.
    cluster.drop = (from, to, message) -> message instanceof Message.TermPersisted;
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 2, 3), List.of(0, 1, 2)))
            .atVersion(1));
    assertLeaderOnly(cluster, IN_RANGE_0, true);
    changePlacement(
        cluster,
        Placement.of(List.of(-1L, Long.MAX_VALUE), List.of(List.of(0, 1, 3), List.of(0, 1, 2)))
            .atVersion(2));
    assertLeaderOnly(cluster, IN_RANGE_0, false);
  }

  // ---- Helpers -----------------------------------------------------------------------------

  /** The nodes node 0 sent a term persist of range 0 to, since {@code cluster.sent} was cleared. */
  private static Set<Integer> termPersistedAt(CoreCluster cluster) {
    Set<Integer> to = new TreeSet<>();
    cluster.sent.stream()
        .filter(
            s -> s.from() == 0 && s.message() instanceof Message.TermPersist p && p.range() == 0)
        .forEach(s -> to.add(s.to()));
    return to;
  }

  private static Key keyInRange(int range, String prefix) {
    for (int i = 0; ; i++) {
      Key key = Key.of(b(prefix + i));
      if (TWO_RANGES.rangeOf(key) == range) {
        return key;
      }
    }
  }

  private static void changePlacement(CoreCluster cluster, Placement next) {
    for (int node = 0; node < cluster.size(); node++) {
      cluster.input(node, new Input.PlacementChanged(next));
    }
  }

  private static void renew(CoreCluster cluster, int range) {
    cluster.input(0, new Input.LeaseRenewed(range, 1, cluster.now().monoNanos()));
  }

  /** Creates {@code key} through node 0 (which leaves it warm there); returns its version. */
  private static Version created(CoreCluster cluster, Key key) {
    long id = cluster.submit(0, new Operation.Create(key, b("v")));
    return assertInstanceOf(Outcome.Written.class, cluster.outcome(id)).version();
  }

  private static void assertLeaderOnly(CoreCluster cluster, Key key, boolean expected) {
    long before = cluster.core(0).leaderOnlyReads();
    long id = cluster.submit(0, new Operation.Get(key));
    assertInstanceOf(Outcome.ReadResult.class, cluster.outcome(id));
    assertEquals(
        expected ? before + 1 : before,
        cluster.core(0).leaderOnlyReads(),
        "leader-only read of " + key + " expected " + expected);
  }

  /** The peers node 0 sent a prepare, accept or read of {@code key} to. */
  private static Set<Integer> peersSentTo(CoreCluster cluster, Key key) {
    Set<Integer> peers = new TreeSet<>();
    for (CoreCluster.Sent s : cluster.sent) {
      if (s.from() == 0
          && s.to() != 0
          && s.message().key().equals(key)
          && (s.message() instanceof Message.Prepare
              || s.message() instanceof Message.Accept
              || s.message() instanceof Message.Read)) {
        peers.add(s.to());
      }
    }
    return peers;
  }

  private static boolean prepared(CoreCluster cluster, Key key) {
    return cluster.sent.stream()
        .anyMatch(s -> s.message() instanceof Message.Prepare && s.message().key().equals(key));
  }

  private static Key keyInRange(int range) {
    for (int i = 0; ; i++) {
      Key key = Key.of(b("key-" + i));
      if (TWO_RANGES.rangeOf(key) == range) {
        return key;
      }
    }
  }

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
