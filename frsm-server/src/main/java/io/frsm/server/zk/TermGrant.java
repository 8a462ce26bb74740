package io.frsm.server.zk;

/**
 * A node won the term of a range: it bumped the term and, in the same ZooKeeper transaction, the
 * range's lease generation, which revokes every lease of the predecessor (DESIGN.md "Lease
 * invariant" rule 1). Renewals check {@code leaseGenerationVersion}.
 *
 * @param grantedAtNanos the holder's monotonic clock when the bump request was sent; the successor
 *     sends no accept before {@code grantedAtNanos + L·(1+ρ)} (rule 4)
 */
public record TermGrant(
    String rangeId, long term, int holderNodeId, int leaseGenerationVersion, long grantedAtNanos) {}
