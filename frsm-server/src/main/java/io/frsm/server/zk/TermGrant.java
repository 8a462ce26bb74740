package io.frsm.server.zk;

/**
 * A node won the term of a range: it bumped the term and, in the same ZooKeeper transaction, the
 * range's lease generation, which revokes every lease of the predecessor (DESIGN.md "Lease
 * invariant" rule 1). Renewals check {@code leaseGenerationVersion}.
 *
 * @param grantedAtNanos the holder's monotonic clock when the bump request was sent; the successor
 *     sends no accept before {@code grantedAtNanos + L·(1+ρ)} (rule 4)
 * @param predecessorReleased the bump found the release mark of term {@code term − 1} at the lease
 *     generation it replaced: no earlier lease can be in force and the successor need not wait
 */
public record TermGrant(
    String rangeId,
    long term,
    int holderNodeId,
    int leaseGenerationVersion,
    long grantedAtNanos,
    boolean predecessorReleased) {}
