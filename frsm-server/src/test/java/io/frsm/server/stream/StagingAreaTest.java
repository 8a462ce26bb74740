package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StagingAreaTest {
  @TempDir Path tmp;

  @Test
  void progress_roundTrips() throws Exception {
    StagingArea s = new StagingArea(tmp, 3, Long.MIN_VALUE, -1);
    List<ManifestFile> files =
        List.of(new ManifestFile("a.db", 100, 0xCAFEBABE), new ManifestFile("b.db", 0, 0));
    s.save(new StagingArea.Progress("00ff", files, new long[] {64, 0}));
    StagingArea.Progress p = new StagingArea(tmp, 3, Long.MIN_VALUE, -1).load();
    assertEquals("00ff", p.snapshotId());
    assertEquals(files, p.files());
    assertArrayEquals(new long[] {64, 0}, p.verified());
    assertNull(new StagingArea(tmp, 4, Long.MIN_VALUE, -1).load(), "another copy's");
  }

  @Test
  void damagedProgress_isNoProgress() throws Exception {
    StagingArea s = new StagingArea(tmp, 1, 0, 0);
    s.save(
        new StagingArea.Progress("01", List.of(new ManifestFile("a.db", 10, 1)), new long[] {5}));
    Path progress = s.directory().resolve(StagingArea.PROGRESS);
    String good = Files.readString(progress);
    for (String bad :
        List.of(
            good.replace("a.db 10 1 5", "a.db 10 1 11"),
            good.replace("a.db", "../a.db"),
            good.replace("frsm-stream-progress 1", "frsm-stream-progress 2"),
            good.substring(0, good.length() / 2),
            "")) {
      Files.writeString(progress, bad);
      assertNull(s.load(), bad);
    }
  }

  @Test
  void stagedFileNames_areNeverPaths() {
    StagingArea s = new StagingArea(tmp, 1, 0, 0);
    for (String name : List.of("../x", "a/b", ".hidden", "", StagingArea.PROGRESS)) {
      assertThrows(StreamException.class, () -> s.file(name), name);
    }
  }

  @Test
  void delete_removesEverything() throws Exception {
    StagingArea s = new StagingArea(tmp, 1, 0, 0);
    s.save(new StagingArea.Progress("01", List.of(), new long[0]));
    Files.writeString(s.directory().resolve("x.db"), "x");
    s.delete();
    assertFalse(Files.exists(s.directory()));
  }
}
