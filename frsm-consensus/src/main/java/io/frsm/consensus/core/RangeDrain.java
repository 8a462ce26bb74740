package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * One range's drain (docs/PROTOCOL.md "Hand-off instead of a scan"): settle every written key, then
 * ship. It holds what one drain has left to do — keys to settle, settle reads in flight, keys
 * accepted again while read, failed reads to retry — so that {@link HandOffDrains}, which runs the
 * reads and decides when a drain ships, keeps only the drains of all ranges.
 */
final class RangeDrain {
  final int range;
  final long term;
  final TreeSet<Key> toSettle = new TreeSet<>();
  final Map<Long, Key> reading = new HashMap<>();
  final Set<Key> readingKeys = new HashSet<>();

  /** Keys that got an accept while their settle read ran: settled again when it answers. */
  final Set<Key> acceptedWhileReading = new HashSet<>();

  final List<Key> failed = new ArrayList<>();
  long retryAtNanos;

  /** The written keys the drain began with: what the agent's drain budget counts. */
  int startKeys;

  RangeDrain(int range, long term) {
    this.range = range;
    this.term = term;
  }

  void needsSettle(Key key) {
    if (readingKeys.contains(key)) {
      acceptedWhileReading.add(key);
    } else {
      toSettle.add(key);
    }
  }

  boolean quiet() {
    return toSettle.isEmpty() && reading.isEmpty() && failed.isEmpty();
  }
}
