package io.frsm.lsm.sstable;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.frsm.lsm.io.WritableFile;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pins the bytes of a tiny table: the worked example in docs/formats/sstable.md. */
class SSTableFormatTest {
  private static final Path TABLE = Path.of("/db/1.sst");

  static List<Cell> exampleCells() {
    Cell promise = Cell.promise(Key.of(new byte[] {'k', '1'}), new Ballot(5, 1, 2), 9);
    Cell chosen =
        Cell.accepted(
            Key.of(new byte[] {'k', '2'}),
            AcceptedValue.live(4, 7, new Ballot(3, 2, 1), new byte[] {'v'}, true),
            10);
    return promise.key().compareTo(chosen.key()) < 0
        ? List.of(promise, chosen)
        : List.of(chosen, promise);
  }

  static byte[] exampleTable() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    fs.createDirectories(TABLE.getParent());
    long size =
        TableFixtures.write(fs, TABLE, exampleCells(), new SSTableOptions(256, 10)).fileSizeBytes();
    byte[] bytes = new byte[(int) size];
    try (ReadableFile file = fs.openRead(TABLE)) {
      file.readFully(ByteBuffer.wrap(bytes), 0);
    }
    return bytes;
  }

  /** The same bytes, annotated, as in docs/formats/sstable.md. DO NOT CHANGE: written to disk. */
  static final String EXAMPLE_HEX =
      // data block 0 at offset 0, 122 bytes
      "01"
          + "02"
          + "6b31" // entry 0: flags (promised), key 'k1'
          + "0000000000000005"
          + "00000001"
          + "00000002" // promised (5,1,2)
          + "0000000000000009" // writeTimeMs
          + "07"
          + "02"
          + "6b32" // entry 1 at 28: flags (promised|accepted|chosen), key 'k2'
          + "0000000000000003"
          + "00000002"
          + "00000001" // promised (3,2,1)
          + "0000000000000004"
          + "0000000000000007" // epoch, timestamp
          + "0000000000000003"
          + "00000002"
          + "00000001" // accepted ballot (3,2,1)
          + "01"
          + "76" // value 'v'
          + "000000000000000a" // writeTimeMs
          + "8ff1825f5a8325fa"
          + "3e3d35f3ad11ef5b" // tokens of entries 0, 1
          + "00000000"
          + "0000001c" // offsets of entries 0, 1
          + "00000002" // entry count
          + "bdced5c7" // crc32c of the block
          // bloom filter at 122, 20 bytes
          + "00000007"
          + "00000001" // 7 hashes, 1 word
          + "0040648808089221" // the 64 bits
          + "33872d57" // crc32c
          // properties at 142, 43 bytes
          + "0000000000000002" // cell count
          + "000000000000000a" // max writeTimeMs
          + "00" // flags: no purge marks
          + "8ff1825f5a8325fa"
          + "02"
          + "6b31" // first key
          + "3e3d35f3ad11ef5b"
          + "02"
          + "6b32" // last key
          + "0bb9cdf8" // crc32c
          // block index at 185, 31 bytes
          + "00000001" // one block
          + "3e3d35f3ad11ef5b"
          + "02"
          + "6b32" // its last key
          + "0000000000000000"
          + "0000007a" // its offset and length
          + "2d4b14af" // crc32c
          // footer at 216, 52 bytes
          + "000000000000007a"
          + "00000014" // bloom section
          + "000000000000008e"
          + "0000002b" // properties section
          + "00000000000000b9"
          + "0000001f" // index section
          + "00000001" // format version
          + "c523fea9" // crc32c of the 40 bytes above
          + "6672736d2e737374"; // magic "frsm.sst"

  @Test
  void tinyTable_bytesAreFrozen() throws Exception {
    assertEquals(EXAMPLE_HEX, HexFormat.of().formatHex(exampleTable()));
  }

  @Test
  void tinyTable_frozenBytesRead() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    fs.createDirectories(TABLE.getParent());
    try (WritableFile file = fs.create(TABLE)) {
      file.write(ByteBuffer.wrap(HexFormat.of().parseHex(EXAMPLE_HEX)));
    }
    try (SSTableReader reader =
        SSTableReader.open(fs, TABLE, BlockCache.disabled(), SSTableMetrics.noop())) {
      List<Cell> cells = exampleCells();
      assertEquals(cells, TableFixtures.drain(reader.iterator(null, null)));
      assertEquals(cells.get(1), reader.get(cells.get(1).key()));
      assertEquals(2, reader.metadata().cellCount());
      assertEquals(SSTableFormat.FORMAT_VERSION, reader.metadata().formatVersion());
    }
  }

  @Test
  void constants_areFrozen() {
    assertEquals(0x6672736d2e737374L, SSTableFormat.MAGIC);
    assertEquals(1, SSTableFormat.FORMAT_VERSION);
    assertEquals(52, SSTableFormat.FOOTER_BYTES);
  }
}
