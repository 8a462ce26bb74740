package io.frsm.server.zk;

/**
 * A node won the term of a range: it bumped the term and, in the same ZooKeeper transaction, the
 * range's lease generation, which revokes every lease of the predecessor (docs/DESIGN.md "Lease
 * invariant" rule 1). Renewals check {@code leaseGenerationVersion}.
 *
 * @param grantedAtNanos the holder's monotonic clock when the bump request was sent; the successor
 *     sends no accept before {@code grantedAtNanos + L·(1+ρ)} (rule 4)
 * @param predecessorReleased the bump found the release mark of term {@code term − 1} at the lease
 *     generation it replaced: no earlier lease can be in force and the successor need not wait
 * @param latchSession the ZooKeeper session that owns the latch entry the term was won with, 0 if
 *     unknown: renewals proven in that session let the session carry the lease ({@link
 *     LeaseKeeper}, docs/PROTOCOL.md "Leases backed by the session")
 */
public record TermGrant(
    String rangeId,
    long term,
    int holderNodeId,
    int leaseGenerationVersion,
    long grantedAtNanos,
    boolean predecessorReleased,
    long latchSession) {

  /** A grant without a known latch session: its lease is carried by renewals only. */
  public TermGrant(
      String rangeId,
      long term,
      int holderNodeId,
      int leaseGenerationVersion,
      long grantedAtNanos,
      boolean predecessorReleased) {
    this(
        rangeId,
        term,
        holderNodeId,
        leaseGenerationVersion,
        grantedAtNanos,
        predecessorReleased,
        0);
  }

  /** This grant, won with a latch entry owned by session {@code session}. */
  public TermGrant inLatchSession(long session) {
    return new TermGrant(
        rangeId,
        term,
        holderNodeId,
        leaseGenerationVersion,
        grantedAtNanos,
        predecessorReleased,
        session);
  }

  /**
   * Whether no lease of an earlier term can be in force, so the successor need not wait: the bump
   * found the predecessor's release mark, or this is the range's first term (the term was 0: no
   * node ever held a lease of the range, as a fresh cluster's ranges).
   */
  public boolean noEarlierLease() {
    return predecessorReleased || term == 1;
  }
}
