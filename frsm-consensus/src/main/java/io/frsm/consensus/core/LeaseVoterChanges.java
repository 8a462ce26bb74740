package io.frsm.consensus.core;

import java.util.List;

/**
 * What a placement change does to one node's range leases. A range whose replica set is unchanged
 * keeps its term, lease, scan and leader-only mode. A range in leader-only mode whose voters gained
 * or lost exactly one node, this node still among them, with its term durable at a quorum of the
 * voters it had until now, keeps them too ({@link #keepsLeaderOnly}) and persists the term again at
 * the new voters (docs/PROTOCOL.md "A voter change in leader-only mode"). Any other range whose set
 * changed loses them as on a lost lease ({@link RangeLease#replicaSetChanged}).
 */
final class LeaseVoterChanges {
  private final RangeLeases leases;
  private final TermPersists persists;
  private final ServabilityPublication publication;
  private final Incarnation incarnation;
  private final boolean keepAcrossAnyVoterChange;
  private final boolean keepWithoutRePersist;
  private long keptLeaderOnly;
  private long keptAcrossMoreThanOne;

  LeaseVoterChanges(
      CoreConfig config,
      RangeLeases leases,
      TermPersists persists,
      ServabilityPublication publication,
      Incarnation incarnation) {
    this.leases = leases;
    this.persists = persists;
    this.publication = publication;
    this.incarnation = incarnation;
    this.keepAcrossAnyVoterChange =
        config.broken(Sabotage.KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE);
    this.keepWithoutRePersist = config.broken(Sabotage.KEEP_LEADER_ONLY_WITHOUT_REPERSIST);
  }

  /**
   * The placement is now {@code change.next()}; each range whose replica set changed keeps or loses
   * leader-only mode as the class says. A range that lost it has its term persist and scan start
   * again, at the new set, from the next tick. Reads of a dropped scan still running are ignored
   * when they end.
   */
  void placementChanged(Now now, PlacementChange change, List<Effect> out) {
    Placement before = leases.placement();
    leases.placement(change.next());
    Placement placement = leases.placement();
    for (int i = 0; i < leases.count(); i++) {
      if (!change.replicasChanged(i)) {
        continue;
      }
      RangeLease r = leases.at(i);
      if (keepsLeaderOnly(now, r, before.replicas(i), placement.replicas(i))) {
        r.ringChanged = true; // a settle may re-commit under its own ballot: coverage ends here
        r.covers = false;
        keptLeaderOnly++;
        if (!PlacementChange.oneVoterApart(before.replicas(i), placement.replicas(i))) {
          keptAcrossMoreThanOne++; // only under KEEP_LEADER_ONLY_ACROSS_ANY_VOTER_CHANGE
        }
        if (!keepWithoutRePersist) {
          // termPersisted stays: a quorum of an adjacent set has it
          persists.send(now, i, r, out);
        }
      } else {
        r.replicaSetChanged(now);
        publication.servabilityChanged();
      }
    }
  }

  /**
   * Whether range lease {@code r} may stay in leader-only mode as its voters go from {@code from}
   * to {@code to}: it is in that mode under a live lease, its term was persisted at a quorum of
   * {@code from} (no re-persist of an earlier change still open), and {@code to} is {@code from}
   * with one node added or removed, this node still a voter. Then every quorum of {@code to} meets
   * the quorum that holds the term, so no round of an older term can complete at either set, and no
   * value is chosen in the range but by this holder's own rounds, which it tracks: the scan's
   * result stands (docs/PROTOCOL.md "A voter change in leader-only mode").
   */
  private boolean keepsLeaderOnly(Now now, RangeLease r, List<Integer> from, List<Integer> to) {
    return r.leaderOnly
        && r.termPersisted
        && r.persistRound == null
        && !r.givenUp()
        && r.holdsLease(now)
        && to.contains(incarnation.nodeId())
        && (PlacementChange.oneVoterApart(from, to) || keepAcrossAnyVoterChange);
  }

  /**
   * Voter changes through which a range kept leader-only mode ({@link #keepsLeaderOnly}); tests
   * count them to show a sabotage of the rule's limits was exercised.
   */
  long keptLeaderOnly() {
    return keptLeaderOnly;
  }

  /** Of {@link #keptLeaderOnly}, the changes of more than one voter (a sabotage's only). */
  long keptAcrossMoreThanOne() {
    return keptAcrossMoreThanOne;
  }
}
