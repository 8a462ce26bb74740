package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagedFilesTest {
  private static final byte[] TABLE = "a table's bytes, whole".getBytes();

  private static ManifestFile table(String name, byte[] bytes) {
    return new ManifestFile(name, bytes.length, Crc32c.of(bytes, 0, bytes.length));
  }

  private static StagingArea staging(Path dir) throws Exception {
    StagingArea area = new StagingArea(dir, 2, 0, 100);
    Files.createDirectories(area.directory());
    return area;
  }

  @Test
  void reopening_cutsEachFileToItsVerifiedPrefix(@TempDir Path dir) throws Exception {
    StagingArea area = staging(dir);
    Files.write(area.file("sst-1.db"), Arrays.copyOf(TABLE, 15)); // 15 bytes, 8 recorded
    StagedFiles staged = new StagedFiles(area);
    staged.open(List.of(table("sst-1.db", TABLE)), new long[] {8});
    staged.close();
    assertArrayEquals(Arrays.copyOf(TABLE, 8), Files.readAllBytes(area.file("sst-1.db")));
  }

  @Test
  void chunksWrittenInAnyOrder_makeTheWholeFile_thatPassesItsCheck(@TempDir Path dir)
      throws Exception {
    StagingArea area = staging(dir);
    StagedFiles staged = new StagedFiles(area);
    staged.open(List.of(table("sst-1.db", TABLE), table("sst-2.db", new byte[0])), new long[2]);
    // A buffer whose position is not 0, as a ByteString sharing its frame's array gives.
    ByteBuffer tail = ByteBuffer.wrap(TABLE);
    tail.position(10);
    staged.write(0, 10, tail);
    staged.write(0, 0, ByteBuffer.wrap(TABLE, 0, 10).slice());
    assertEquals(1, staged.unforced());
    staged.completeFile(0, "snap-1");
    assertEquals(0, staged.unforced(), "a completed file is forced");
    assertEquals(
        List.of(area.file("sst-1.db")), staged.nonEmptyPaths(), "empty files not imported");
    staged.close();
    assertArrayEquals(TABLE, Files.readAllBytes(area.file("sst-1.db")));
  }

  @Test
  void forceWritten_forcesWhatWasWritten_soItsProgressMayBeRecorded(@TempDir Path dir)
      throws Exception {
    StagedFiles staged = new StagedFiles(staging(dir));
    staged.open(List.of(table("sst-1.db", TABLE), table("sst-2.db", TABLE)), new long[2]);
    staged.write(0, 0, ByteBuffer.wrap(TABLE, 0, 4));
    staged.write(1, 0, ByteBuffer.wrap(TABLE, 0, 4));
    assertEquals(2, staged.unforced());
    staged.forceWritten();
    assertEquals(0, staged.unforced());
    staged.close();
  }

  @Test
  void aWholeFileThatFailsItsCrc_endsTheCopy_namingFileAndSnapshot(@TempDir Path dir)
      throws Exception {
    StagedFiles staged = new StagedFiles(staging(dir));
    staged.open(List.of(new ManifestFile("sst-1.db", TABLE.length, 12345)), new long[1]);
    staged.write(0, 0, ByteBuffer.wrap(TABLE));
    StreamException e = assertThrows(StreamException.class, () -> staged.completeFile(0, "snap-9"));
    assertTrue(
        e.getMessage().contains("sst-1.db") && e.getMessage().contains("snap-9"), e.getMessage());
    staged.close();
  }

  @Test
  void verifiedOffsets_mustMatchTheFiles(@TempDir Path dir) throws Exception {
    StagedFiles staged = new StagedFiles(staging(dir));
    assertThrows(
        IllegalArgumentException.class,
        () -> staged.open(List.of(table("sst-1.db", TABLE)), new long[2]));
  }
}
