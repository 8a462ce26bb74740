package io.frsm.lsm;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import java.nio.charset.StandardCharsets;

/** Small factories for engine tests. */
final class TestCells {
  private TestCells() {}

  static Key key(String s) {
    return Key.of(s.getBytes(StandardCharsets.UTF_8));
  }

  static Key key(int i) {
    return key(String.format("key-%08d", i));
  }

  static Cell live(Key key, long epoch, long timestamp, String value, boolean chosen) {
    return Cell.accepted(
        key,
        AcceptedValue.live(
            epoch,
            timestamp,
            new Ballot(epoch * 1000 + timestamp + 1, 1, 1),
            value.getBytes(StandardCharsets.UTF_8),
            chosen),
        1);
  }

  static Cell deleted(Key key, long epoch, long timestamp, boolean chosen) {
    return Cell.accepted(
        key,
        AcceptedValue.delete(
            epoch, timestamp, new Ballot(epoch * 1000 + timestamp + 1, 1, 1), chosen),
        1);
  }

  static Cell purge(Key key, long epoch, long timestamp, long markTimeMs) {
    return Cell.purge(key, new PurgeMark(epoch, timestamp, markTimeMs), 1);
  }

  static Cell promise(Key key, long round) {
    return Cell.promise(key, new Ballot(round, 2, 1), 1);
  }

  static String valueOf(Cell cell) {
    return new String(cell.accepted().valueUnsafe(), StandardCharsets.UTF_8);
  }
}
