package io.frsm.lsm.sstable;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.lsm.io.FileSystem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

/** Random cells of every shape, and tables written from them. */
final class TableFixtures {
  private TableFixtures() {}

  /** {@code count} cells with distinct random keys, in key order. */
  static List<Cell> randomCells(Random random, int count) {
    TreeMap<Key, Cell> cells = new TreeMap<>();
    while (cells.size() < count) {
      Key key = randomKey(random);
      cells.put(key, randomCell(random, key));
    }
    return new ArrayList<>(cells.values());
  }

  static Key randomKey(Random random) {
    byte[] bytes = new byte[1 + random.nextInt(24)];
    random.nextBytes(bytes);
    return Key.wrap(bytes);
  }

  /**
   * Promise-only cells, live values (mostly small, some up to 2 KiB), deletes, purge marks, chosen
   * or not, with promises above the accepted ballot now and then.
   */
  static Cell randomCell(Random random, Key key) {
    long writeTimeMs = 1_700_000_000_000L + random.nextInt(1_000_000);
    Ballot ballot = new Ballot(1 + random.nextInt(1_000_000), random.nextInt(5), random.nextInt(3));
    int shape = random.nextInt(100);
    if (shape < 15) {
      return Cell.promise(key, ballot, writeTimeMs);
    }
    long epoch = random.nextInt(1000);
    long timestamp = random.nextInt(1000);
    boolean chosen = random.nextBoolean();
    if (shape < 30) {
      return Cell.accepted(
          key, AcceptedValue.delete(epoch, timestamp, ballot, chosen), writeTimeMs);
    }
    if (shape < 40) {
      AcceptedValue delete = AcceptedValue.delete(epoch, timestamp, ballot, true);
      return new Cell(
          key, ballot, delete, new PurgeMark(epoch, timestamp, writeTimeMs + 1), writeTimeMs);
    }
    byte[] value = new byte[shape < 55 ? random.nextInt(2049) : random.nextInt(64)];
    random.nextBytes(value);
    AcceptedValue live = AcceptedValue.live(epoch, timestamp, ballot, value, chosen);
    Ballot promised =
        random.nextInt(5) == 0 ? new Ballot(ballot.round() + 1, ballot.nodeId(), 0) : ballot;
    return new Cell(key, promised, live, null, writeTimeMs);
  }

  static SSTableMetadata write(FileSystem fs, Path path, List<Cell> cells, SSTableOptions options)
      throws IOException {
    try (SSTableWriter writer = SSTableWriter.create(fs, path, cells.size(), options)) {
      for (Cell cell : cells) {
        writer.add(cell);
      }
      return writer.finish();
    }
  }

  static List<Cell> drain(CellIterator iterator) throws IOException {
    try (iterator) {
      List<Cell> out = new ArrayList<>();
      while (iterator.hasNext()) {
        out.add(iterator.next());
      }
      return out;
    }
  }
}
