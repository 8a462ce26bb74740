package io.frsm.lsm;

import java.util.ArrayList;
import java.util.List;

/** Token ranges with an import in progress: tombstones there are not purged. Thread-safe. */
final class ImportRanges {
  private record Range(long from, long to) {}

  private final List<Range> ranges = new ArrayList<>();

  synchronized Object begin(long fromToken, long toToken) {
    Range r = new Range(fromToken, toToken);
    ranges.add(r);
    return r;
  }

  synchronized void end(Object handle) {
    ranges.remove(handle);
  }

  synchronized boolean overlaps(long token) {
    for (Range r : ranges) {
      if (r.from <= token && token <= r.to) {
        return true;
      }
    }
    return false;
  }
}
