package io.frsm.consensus.core;

/**
 * A snapshot of one core's operation counters since it was built (a restart starts again at zero).
 * Counted when an operation ends, so an operation still running is in none of them. Only client
 * operations are counted: the reads a new range holder's scan runs are not (their prepares and
 * accepts are, in {@code preparesSent} and {@code acceptsSent}).
 *
 * <p>Operations of each kind ({@code gets} … {@code fences}) count every ending, whatever the
 * outcome; {@code mismatches}, {@code keyExists}, {@code unknownOutcomes} and {@code notExecuted}
 * count the failures by kind over all operations.
 *
 * <p>Warm and cold count CAS operations (not deletes) that ran at least one round: warm ones got
 * their answer from accepts alone (1 RTT, docs/DESIGN.md "Warm CAS"), cold ones ran a prepare.
 * {@code casCold / (casWarm + casCold)} is the paper's multi-phase fraction. Reads by mode count
 * gets that returned a value or absence: from the local cell under the lease ({@code
 * readsLeaderOnly}), a quorum read that wrote nothing ({@code readsQuorum}), or one that had to
 * prepare and write ({@code readsMutatingQuorum}).
 *
 * <p>{@code preparesSent} and {@code acceptsSent} count the prepare and accept messages the
 * operations' rounds sent, the one to this node itself included. {@code mismatchesLeaderOnly}
 * counts the CAS and delete mismatches (part of {@code mismatches}) answered from the local cell
 * under the lease, with no round (they are neither warm nor cold).
 *
 * <p>Ring versions (docs/PROTOCOL.md "Membership changes"): {@code staleRingRefused} counts the
 * requests and purges this node's acceptor refused because they carried an outdated ring version;
 * {@code staleRingReplies} counts the refusals of that kind this node's own rounds (client
 * operations, scans and settles) received — a node that gets them is behind, or ran a round that
 * started before a membership step.
 *
 * <p>Range scans (docs/PROTOCOL.md "Hot keys first"): {@code keysSettledByScan} counts the keys a
 * new holder's scan read in its own order; {@code keysSettledByPull} the keys an operation pulled
 * forward, read ahead of that order, and {@code pullSettleNanos} the time from each pull to its key
 * settled, summed (divided by {@code keysSettledByPull}: the mean time to settle a hot key). A key
 * the scan skipped because a pull settled it is counted once, as pulled; a key whose pull failed is
 * read again by the scan, and may be counted twice (its retry and its page). {@code
 * keysSkippedByScan} counts the keys a holder's scan left unsettled after {@link
 * RangeScan#READ_ATTEMPTS} reads that did not answer (docs/PROTOCOL.md "A key the scan cannot
 * settle").
 *
 * <p>Membership settles (docs/PROTOCOL.md "Membership changes", "Settle"): {@code
 * settleReadRetries} counts the settle reads that ended without a value and were read again (each
 * costs another prepare, and an accept if anything is found); {@code settleRoundsPreempted} the
 * rounds of settle reads refused because a replica promised a higher ballot (another round of the
 * same key — a client operation, a scan read, or another settle read — got there first).
 */
public record CoreStats(
    long gets,
    long creates,
    long cases,
    long deletes,
    long fences,
    long casWarm,
    long casCold,
    long readsLeaderOnly,
    long readsQuorum,
    long readsMutatingQuorum,
    long mismatches,
    long keyExists,
    long unknownOutcomes,
    long notExecuted,
    long preparesSent,
    long acceptsSent,
    long mismatchesLeaderOnly,
    long staleRingRefused,
    long staleRingReplies,
    long keysSettledByScan,
    long keysSettledByPull,
    long pullSettleNanos,
    long keysSkippedByScan,
    long settleReadRetries,
    long settleRoundsPreempted) {

  public static final CoreStats ZERO =
      new CoreStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

  /** {@code n} gets served from the local cell under the lease, and nothing else. */
  public static CoreStats leaderOnlyReads(long n) {
    return new CoreStats(n, 0, 0, 0, 0, 0, 0, n, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  }

  /** Field-wise sum, for cluster-wide totals. */
  public CoreStats plus(CoreStats o) {
    return combine(o, 1);
  }

  /** Field-wise difference: what happened between snapshot {@code earlier} and this one. */
  public CoreStats minus(CoreStats earlier) {
    return combine(earlier, -1);
  }

  private CoreStats combine(CoreStats o, long sign) {
    return new CoreStats(
        gets + sign * o.gets,
        creates + sign * o.creates,
        cases + sign * o.cases,
        deletes + sign * o.deletes,
        fences + sign * o.fences,
        casWarm + sign * o.casWarm,
        casCold + sign * o.casCold,
        readsLeaderOnly + sign * o.readsLeaderOnly,
        readsQuorum + sign * o.readsQuorum,
        readsMutatingQuorum + sign * o.readsMutatingQuorum,
        mismatches + sign * o.mismatches,
        keyExists + sign * o.keyExists,
        unknownOutcomes + sign * o.unknownOutcomes,
        notExecuted + sign * o.notExecuted,
        preparesSent + sign * o.preparesSent,
        acceptsSent + sign * o.acceptsSent,
        mismatchesLeaderOnly + sign * o.mismatchesLeaderOnly,
        staleRingRefused + sign * o.staleRingRefused,
        staleRingReplies + sign * o.staleRingReplies,
        keysSettledByScan + sign * o.keysSettledByScan,
        keysSettledByPull + sign * o.keysSettledByPull,
        pullSettleNanos + sign * o.pullSettleNanos,
        keysSkippedByScan + sign * o.keysSkippedByScan,
        settleReadRetries + sign * o.settleReadRetries,
        settleRoundsPreempted + sign * o.settleRoundsPreempted);
  }

  /** Cold CAS operations over all counted ones (0 when none ran). */
  public double multiPhaseFraction() {
    long total = casWarm + casCold;
    return total == 0 ? 0 : (double) casCold / total;
  }
}
