package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Input;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable hand-off base records: what is written is read back; a torn, flipped, foreign or misnamed
 * record is never trusted (deleted, counted: the range scans); a dropped one is gone.
 */
class HandOffBaseRecordsTest {
  @TempDir Path data;

  @Test
  void written_isReadBack_andADroppedOneIsGone() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c1", 3);
    records.record(0, 7, 2);
    records.record(5, 9, 2);
    records.record(5, 11, 2); // replaces
    List<Input.RestoreBase> loaded = sorted(new HandOffBaseRecords(data, "c1", 3).load());
    assertEquals(List.of(new Input.RestoreBase(0, 7, 2), new Input.RestoreBase(5, 11, 2)), loaded);
    records.drop(0);
    records.drop(4); // none: nothing happens
    assertEquals(
        List.of(new Input.RestoreBase(5, 11, 2)), new HandOffBaseRecords(data, "c1", 3).load());
  }

  /**
   * The kind (docs/FORMATS.md "Hand-off base records", version 2): an entry base reads back as one;
   * a version-1 record (no kind, written only at shipments) reads as a graceful base; a kind that
   * is neither is not trusted.
   */
  @Test
  void theKind_entryReadBack_versionOneGraceful_unknownKindNotTrusted() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c1", 3);
    records.record(1, 4, 2, true);
    records.record(2, 6, 2, false);
    Path dir = data.resolve(HandOffBaseRecords.DIRECTORY);
    Files.write(
        dir.resolve("range-3"),
        records.encode(HandOffBaseRecords.VERSION_WITHOUT_KIND, 3, 8, 2, false));
    assertEquals(
        List.of(
            new Input.RestoreBase(1, 4, 2, true),
            new Input.RestoreBase(2, 6, 2, false),
            new Input.RestoreBase(3, 8, 2, false)),
        sorted(new HandOffBaseRecords(data, "c1", 3).load()));
    byte[] unknown = records.encode(5, 9, 2, true);
    int kindAt = unknown.length - 5;
    unknown[kindAt] = 7;
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(unknown, 0, unknown.length - 4);
    java.nio.ByteBuffer.wrap(unknown).putInt(unknown.length - 4, (int) crc.getValue());
    Files.write(dir.resolve("range-5"), unknown);
    HandOffBaseRecords reader = new HandOffBaseRecords(data, "c1", 3);
    assertEquals(3, reader.load().size());
    assertEquals(1, reader.untrusted());
    assertFalse(Files.exists(dir.resolve("range-5")));
  }

  @Test
  void everyFlippedByte_isNotTrusted() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "cluster-a", 1);
    for (byte[] good :
        List.of(
            records.encode(2, 5, 1, false),
            records.encode(2, 5, 1, true),
            records.encode(HandOffBaseRecords.VERSION_WITHOUT_KIND, 2, 5, 1, false))) {
      everyFlippedBitOf(good);
    }
  }

  private void everyFlippedBitOf(byte[] good) throws Exception {
    for (int i = 0; i < good.length; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] bad = good.clone();
        bad[i] ^= (byte) (1 << bit);
        Path file = data.resolve(HandOffBaseRecords.DIRECTORY).resolve("range-2");
        Files.createDirectories(file.getParent());
        Files.write(file, bad);
        HandOffBaseRecords reader = new HandOffBaseRecords(data, "cluster-a", 1);
        assertEquals(List.of(), reader.load(), "byte " + i + " bit " + bit);
        assertEquals(1, reader.untrusted());
        assertFalse(Files.exists(file), "an untrusted record is deleted");
      }
    }
  }

  @Test
  void tornForeignMisnamedOrEmpty_isNotTrusted() throws Exception {
    HandOffBaseRecords mine = new HandOffBaseRecords(data, "c1", 1);
    Path dir = data.resolve(HandOffBaseRecords.DIRECTORY);
    Files.createDirectories(dir);
    byte[] good = mine.encode(2, 5, 1);
    Files.write(dir.resolve("range-1"), java.util.Arrays.copyOf(good, good.length - 3)); // torn
    Files.write(dir.resolve("range-3"), new byte[0]);
    Files.write(dir.resolve("range-4"), new HandOffBaseRecords(data, "c2", 1).encode(4, 5, 1));
    Files.write(dir.resolve("range-6"), new HandOffBaseRecords(data, "c1", 2).encode(6, 5, 1));
    Files.write(dir.resolve("range-7"), good); // the record of range 2 under another name
    Files.write(dir.resolve("notes.txt"), "hello".getBytes());
    Files.write(dir.resolve("range-8"), new byte[10_000]);
    Files.write(dir.resolve("range-2.tmp"), good); // a crash mid-write: not a record
    assertEquals(List.of(), mine.load());
    assertEquals(7, mine.untrusted());
    try (var left = Files.list(dir)) {
      assertEquals(0, left.count(), "nothing untrusted is left behind");
    }
  }

  @Test
  void noDirectory_noRecords() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c1", 1);
    assertTrue(records.load().isEmpty());
    records.drop(3);
    assertEquals(0, records.untrusted());
  }

  private static List<Input.RestoreBase> sorted(List<Input.RestoreBase> in) {
    return in.stream().sorted(Comparator.comparingInt(Input.RestoreBase::range)).toList();
  }
}
