package io.frsm.lsm;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The child process of {@link CrashRecoveryIT}: writes cells as fast as it can with tiny memtables
 * and segments (so flushes and compactions run all the time) and prints one {@code ack} line per
 * acknowledged write, until it is killed with SIGKILL.
 *
 * <p>Every write is a function of (run, writer, sequence), so the parent can rebuild the exact cell
 * from the ack line alone.
 */
public final class CrashChild {
  static final int WRITERS = 8;
  static final long NEVER_EXPIRES_MS = 4_000_000_000_000L; // year 2096

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int run = Integer.parseInt(args[1]);
    LsmEngine engine =
        LsmEngine.open(config(dir, run), NioFileSystem.INSTANCE, new SimpleMeterRegistry());
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    out.println("ready");
    out.flush();
    Thread[] writers = new Thread[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      writers[w] =
          new Thread(
              () -> {
                for (long seq = 0; ; seq++) {
                  Cell cell = cellFor(run, writer, seq);
                  engine.write(cell).join();
                  synchronized (out) {
                    out.println("ack " + run + " " + writer + " " + seq);
                    out.flush();
                  }
                }
              });
      writers[w].start();
    }
    for (Thread t : writers) {
      t.join();
    }
  }

  /**
   * Tiny memtables and segments; odd runs also write through a group-commit window (eight writers
   * keep it open), so a kill lands inside windows too. The window only delays syncs, so replay
   * needs no matching setting.
   */
  static LsmConfig config(Path dir, int run) {
    return LsmConfig.builder(dir.resolve("data"))
        .commitLogGroupCommitWindow(run % 2 == 1 ? Duration.ofMillis(1) : Duration.ZERO)
        .commitLogDirectories(List.of(dir.resolve("cl0"), dir.resolve("cl1")))
        .memtableFlushSizeBytes(64 * 1024)
        .commitLogRotationThresholdBytes(32 * 1024)
        .maxCommitLogSizeOnDiskBytes(256 * 1024)
        .minorCompactionMinTables(2)
        .build();
  }

  /**
   * The write for (run, writer, seq): mostly fresh keys with a live value, sometimes a promise or a
   * delete with a purge mark, sometimes a later version of a key this writer wrote before.
   */
  static Cell cellFor(int run, int writer, long seq) {
    SplittableRandom r = new SplittableRandom(((long) run << 40) ^ ((long) writer << 32) ^ seq);
    int kind = r.nextInt(10);
    Key key = keyFor(run, writer, seq);
    Ballot ballot = new Ballot(1 + seq, writer, run);
    byte[] value = new byte[16 + r.nextInt(400)];
    r.nextBytes(value);
    if (kind == 0) {
      return Cell.promise(key, ballot, seq);
    }
    if (kind == 1) {
      return new Cell(
          key,
          ballot,
          AcceptedValue.delete(run, seq, ballot, true),
          new PurgeMark(run, seq, NEVER_EXPIRES_MS),
          seq);
    }
    return Cell.accepted(key, AcceptedValue.live(run, seq, ballot, value, kind % 2 == 0), seq);
  }

  static Key keyFor(int run, int writer, long seq) {
    return Key.of(("r" + run + "-w" + writer + "-s" + seq).getBytes(StandardCharsets.UTF_8));
  }
}
