package io.frsm.lsm;

import static io.frsm.lsm.TestCells.key;
import static io.frsm.lsm.TestCells.live;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 23 point 3: damage inside the durable part of a commit-log segment loses acknowledged
 * records of keys nobody can name. The engine must open anyway (a node is never fatal because of
 * it) and fence every token, durably, until the replica is repaired; never serve what is left as if
 * it were whole.
 */
class CommitLogDamageTest {
  private static final Path DATA = Path.of("/node/data");
  private static final Path LOG = Path.of("/node/cl0");

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final List<LsmEngine> open = new ArrayList<>();

  private LsmEngine open(boolean skipCorruptTail) throws IOException {
    LsmConfig config =
        LsmConfig.builder(DATA)
            .commitLogDirectories(List.of(LOG))
            .skipCorruptCommitLogTail(skipCorruptTail)
            .scrubEnabled(false)
            .build();
    LsmEngine e = LsmEngine.open(config, fs, new SimpleMeterRegistry(), () -> 1_000_000L);
    open.add(e);
    return e;
  }

  @AfterEach
  void killAll() {
    for (LsmEngine e : open) {
      e.kill();
    }
  }

  /** Writes 300 acknowledged cells, kills the engine, and flips a byte a third into the log. */
  private List<Cell> writeAndDamageTheLog() throws Exception {
    LsmEngine engine = open(false);
    List<Cell> written = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      Cell c = live(key(i), 1, 0, "value-" + i, true);
      engine.write(c).get(30, TimeUnit.SECONDS);
      written.add(c);
    }
    engine.kill();
    Path segment = null;
    long end = 0;
    for (Path p : fs.list(LOG)) {
      if (p.getFileName().toString().endsWith(".log")) {
        long e = endOfData(p);
        if (e > end) {
          end = e;
          segment = p;
        }
      }
    }
    fs.flipByte(segment, end / 3);
    return written;
  }

  /** Where the written part of a (possibly preallocated, zero-filled) segment ends. */
  private long endOfData(Path segment) throws IOException {
    try (ReadableFile in = fs.openRead(segment)) {
      byte[] bytes = new byte[(int) in.size()];
      in.readFully(ByteBuffer.wrap(bytes), 0);
      int end = bytes.length;
      while (end > 0 && bytes[end - 1] == 0) {
        end--;
      }
      return end;
    }
  }

  @Test
  void damagedCommitLog_opensFenced_everyKeyQuarantined_untilReleased_evenAfterAFlush()
      throws Exception {
    List<Cell> written = writeAndDamageTheLog();
    LsmEngine reopened = open(false); // not fatal
    assertEquals(
        List.of(
            new QuarantinedInterval(
                0, new io.frsm.lsm.manifest.TokenInterval(Long.MIN_VALUE, Long.MAX_VALUE), true)),
        reopened.quarantinedIntervals());
    for (Cell c : written) {
      assertThrows(QuarantinedRangeException.class, () -> reopened.get(c.key()));
    }
    assertThrows(QuarantinedRangeException.class, () -> reopened.scan(0, 1));
    // A flush discards the damaged segment: the fence must outlive it, across a restart.
    reopened.flush().get(30, TimeUnit.SECONDS);
    reopened.close();
    LsmEngine again = open(false);
    assertEquals(1, again.quarantinedIntervals().size());
    assertThrows(QuarantinedRangeException.class, () -> again.get(written.get(0).key()));

    // After the repair: released, the records before the damage are there, exactly.
    again.releaseQuarantine(0);
    assertTrue(again.quarantinedIntervals().isEmpty());
    assertEquals(written.get(0), again.get(written.get(0).key()));
    int kept = 0;
    for (Cell c : written) {
      Cell read = again.get(c.key());
      if (read != null) {
        assertEquals(c, read);
        kept++;
      }
    }
    assertTrue(kept > 0 && kept < written.size(), "kept " + kept);
    again.close();
    assertTrue(open(false).quarantinedIntervals().isEmpty(), "the release is durable");
  }

  @Test
  void skipCorruptCommitLogTail_keepsItsOldMeaning_skipsWithoutAFence() throws Exception {
    writeAndDamageTheLog();
    LsmEngine reopened = open(true);
    assertTrue(reopened.quarantinedIntervals().isEmpty());
    reopened.get(key(0)); // served: the operator chose to take the loss on
  }
}
