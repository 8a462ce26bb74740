package io.frsm.cell;

/**
 * Phase 2 of delete (paper appendix A.2): every replica durably acked the delete at {@code (epoch,
 * timestamp)}; {@code markTimeMs} is the wall-clock time the purge was marked, the start of the
 * tombstone grace period. Ordered lexicographically; merge takes the max.
 */
public record PurgeMark(long epoch, long timestamp, long markTimeMs)
    implements Comparable<PurgeMark> {

  @Override
  public int compareTo(PurgeMark o) {
    int c = Long.compare(epoch, o.epoch);
    if (c != 0) {
      return c;
    }
    c = Long.compare(timestamp, o.timestamp);
    return c != 0 ? c : Long.compare(markTimeMs, o.markTimeMs);
  }

  public boolean names(AcceptedValue accepted) {
    return accepted != null && accepted.epoch() == epoch && accepted.timestamp() == timestamp;
  }
}
