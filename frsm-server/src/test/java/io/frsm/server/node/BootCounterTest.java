package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootCounterTest {
  @TempDir Path dir;

  @Test
  void everyStart_getsTheNextBoot_startingAtOne() throws IOException {
    assertEquals(1, BootCounter.next(dir));
    assertEquals(2, BootCounter.next(dir));
    assertEquals(3, BootCounter.next(dir));
    assertFalse(Files.exists(dir.resolve("BOOT.tmp")), "no temporary file is left behind");
  }

  @Test
  void damagedCounter_refusesToStart_ratherThanReuseBallots() throws IOException {
    Files.writeString(dir.resolve(BootCounter.FILE_NAME), "7x\n");
    IOException e = assertThrows(IOException.class, () -> BootCounter.next(dir));
    assertEquals(true, e.getMessage().contains("damaged"));
  }

  @Test
  void leftoverTemporaryFile_fromACrashMidWrite_isIgnored() throws IOException {
    assertEquals(1, BootCounter.next(dir));
    Files.writeString(dir.resolve("BOOT.tmp"), "99"); // crash before the rename
    assertEquals(2, BootCounter.next(dir));
  }
}
