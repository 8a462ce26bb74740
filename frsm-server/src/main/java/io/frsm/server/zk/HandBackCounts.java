package io.frsm.server.zk;

/**
 * One node's hand-backs with a shipment so far, as the stand-in counts them (docs/PROTOCOL.md
 * "Hand-off instead of a scan"; meters in docs/OPERATIONS.md).
 *
 * @param begun hand-overs on purpose that drained instead of releasing at once
 * @param shipped drains whose core shipped
 * @param keysShipped keys in those shipments
 * @param keysSettled written keys the drains began with a settle read for (an open accept, or no
 *     chosen value in the local cell); the others shipped their local chosen value as it was
 * @param acknowledged shipments the successor's core took
 * @param withoutShipment drains given up after one lease: released plainly, the successor scans
 * @param notAcknowledged shipments the successor refused or did not answer within one lease (it
 *     scans)
 * @param declined hand-offs the core declined at once (more keys written than a drain takes):
 *     released plainly, the successor scans
 * @param declinedBudget hand-offs the core declined at once because the keys written did not fit
 *     what was left of the node's drain budget
 * @param declinedAbsence hand-backs declined before asking the core: the interim term lasted longer
 *     than the absence limit
 * @param drainNanos the drains that shipped, from the hand-off's start to the shipment: their total
 *     time in nanoseconds
 * @param drainNanosMax the longest of those drains
 */
public record HandBackCounts(
    long begun,
    long shipped,
    long keysShipped,
    long keysSettled,
    long acknowledged,
    long withoutShipment,
    long notAcknowledged,
    long declined,
    long declinedBudget,
    long declinedAbsence,
    long drainNanos,
    long drainNanosMax) {}
