package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The fault control file of the multi-process fault suite: what it sets, what it refuses. */
class FaultControlFileTest {
  @AfterEach
  void clockBack() {
    WallClock.offsetForTests(Duration.ZERO);
  }

  @Test
  void everyDirective_setsItsFault() {
    FaultControlFile.State s =
        FaultControlFile.parse(
            "# a comment\ndropTo 2 3\n\ndropFrom 2\ndelayTo 3 150\nclockOffset -400\n");
    assertEquals(List.of(2, 3), s.dropTo());
    assertEquals(List.of(2), s.dropFrom());
    assertEquals(1, s.delays().size());
    assertEquals(3, s.delays().get(0)[0]);
    assertEquals(150, s.delays().get(0)[1]);
    assertEquals(Duration.ofMillis(-400), s.clockOffset());
  }

  @Test
  void malformedLines_areRefused() {
    for (String bad :
        List.of(
            "dropTo",
            "dropTo 0",
            "dropTo -1",
            "dropTo x",
            "delayTo 2",
            "delayTo 2 -5",
            "delayTo 2 60001",
            "clockOffset 3600001",
            "clockOffset 1 2",
            "partition 2",
            "dropTo 99999999999")) {
      assertThrows(IllegalArgumentException.class, () -> FaultControlFile.parse(bad), bad);
    }
  }

  @Test
  void pollApplies_changes_andKeepsTheLastGoodStateOnABadFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("faults");
    PeerLinkFaults faults = new PeerLinkFaults();
    FaultControlFile control = new FaultControlFile(file, faults);
    control.pollOnce(); // no file: no fault
    assertFalse(faults.dropsTo(2));

    FaultControlFile.write(file, "dropTo 2\ndropFrom 3\nclockOffset 1000");
    long before = WallClock.nowMicros();
    control.pollOnce();
    assertTrue(faults.dropsTo(2));
    assertTrue(faults.dropsFrom(3));
    assertFalse(faults.dropsTo(3));
    assertTrue(WallClock.nowMicros() - before >= 900_000, "the clock moved ahead by 1 s");

    FaultControlFile.write(file, "dropTo 2\nnonsense");
    control.pollOnce();
    assertTrue(faults.dropsFrom(3), "a bad file changes nothing");

    Files.write(file, new byte[FaultControlFile.MAX_BYTES + 1]);
    control.pollOnce();
    assertTrue(faults.dropsFrom(3), "an oversized file changes nothing");

    Files.writeString(file, "\u00e9t\u00e9", StandardCharsets.UTF_8);
    control.pollOnce();
    assertTrue(faults.dropsFrom(3), "bytes that are not ASCII change nothing");

    FaultControlFile.write(file, "");
    control.pollOnce();
    assertFalse(faults.dropsTo(2));
    assertFalse(faults.dropsFrom(3));
    long now = WallClock.nowMicros();
    long system = java.time.Instant.now().toEpochMilli() * 1000;
    assertTrue(Math.abs(now - system) < 500_000, "the clock is back");
  }
}
