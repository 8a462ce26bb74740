package io.frsm.server.node;

/**
 * How a node's cores entered leader-only mode and handed ranges off (docs/PROTOCOL.md "Hand-off
 * instead of a scan"), as of their last tick.
 *
 * @param scansCompleted range scans completed (each put a range in leader-only mode)
 * @param shipped hand-off drains that shipped
 * @param enteredByImport ranges put in leader-only mode by an imported shipment, without a scan
 * @param importsRefused shipments refused (no base, a term in between, keys not of the range)
 */
public record HandOffTally(
    long scansCompleted, long shipped, long enteredByImport, long importsRefused) {
  static final HandOffTally ZERO = new HandOffTally(0, 0, 0, 0);

  HandOffTally plus(HandOffTally o) {
    return new HandOffTally(
        scansCompleted + o.scansCompleted,
        shipped + o.shipped,
        enteredByImport + o.enteredByImport,
        importsRefused + o.importsRefused);
  }
}
