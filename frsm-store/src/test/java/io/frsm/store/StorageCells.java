package io.frsm.store;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;

/** Cells for the storage tests. */
final class StorageCells {
  private StorageCells() {}

  static Key key(String name) {
    return Key.of(name.getBytes(StandardCharsets.US_ASCII));
  }

  static Cell promise(Key key, long round) {
    return Cell.promise(key, new Ballot(round, 1, 1), 0);
  }

  /** An accepted value at {@code (1, timestamp)} under ballot {@code round}. */
  static Cell accepted(Key key, long timestamp, long round, String value) {
    return Cell.accepted(
        key,
        AcceptedValue.live(
            1,
            timestamp,
            new Ballot(round, 1, 1),
            value.getBytes(StandardCharsets.US_ASCII),
            false),
        0);
  }

  /** As {@link #accepted}, marked chosen. */
  static Cell chosen(Key key, long timestamp, long round, String value) {
    return Cell.accepted(
        key,
        AcceptedValue.live(
            1, timestamp, new Ballot(round, 1, 1), value.getBytes(StandardCharsets.US_ASCII), true),
        0);
  }
}
