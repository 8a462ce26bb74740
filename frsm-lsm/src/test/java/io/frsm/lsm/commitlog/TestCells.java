package io.frsm.lsm.commitlog;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Distinct, recognizable cells for commit-log tests. */
final class TestCells {
  private TestCells() {}

  /** Cell number {@code i}: key "key-i", a live value at timestamp i of {@code valueBytes}. */
  static Cell cell(int i, int valueBytes) {
    byte[] value = new byte[valueBytes];
    Arrays.fill(value, (byte) i);
    return Cell.accepted(
        Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII)),
        AcceptedValue.live(1, i, new Ballot(1, 1, 1), value, false),
        i);
  }

  static Cell cell(int i) {
    return cell(i, 16);
  }
}
