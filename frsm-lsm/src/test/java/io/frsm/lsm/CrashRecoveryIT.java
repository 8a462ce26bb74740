package io.frsm.lsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety with real processes and a real disk: a child JVM writes with acknowledgment while
 * flushes and compactions run, and is killed with SIGKILL at a random point. After every kill the
 * engine is reopened here and every acknowledged write must be present with its exact clock.
 * Repeated {@value #KILLS} times on one data directory, so later runs also replay, flush and
 * compact what earlier runs left behind.
 *
 * <p>Seed: {@code -Dfrsm.crash.seed=N}; kill count: {@code -Dfrsm.crash.kills=N}.
 */
class CrashRecoveryIT {
  static final int KILLS = Integer.getInteger("frsm.crash.kills", 24);

  @Test
  void acknowledgedWrites_surviveSigkillAtRandomPoints(@TempDir Path dir) throws Exception {
    long seed = Long.getLong("frsm.crash.seed", System.nanoTime());
    SplittableRandom random = new SplittableRandom(seed);
    List<long[]> acked = new ArrayList<>();
    long totalAcks = 0;
    for (int run = 1; run <= KILLS; run++) {
      Process child =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-ea",
                  "-Xmx256m",
                  "-cp",
                  System.getProperty("java.class.path"),
                  CrashChild.class.getName(),
                  dir.toString(),
                  Integer.toString(run))
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .start();
      // Kill after a random number of acknowledgments: early (during replay and the first
      // flushes) or late (many flushes and compactions in).
      int killAfterAcks = random.nextInt(50, 4000);
      int acksThisRun = 0;
      try (BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = lines.readLine()) != null) {
          if (line.startsWith("ack ")) {
            String[] f = line.split(" ");
            acked.add(
                new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
            if (++acksThisRun >= killAfterAcks) {
              break;
            }
          }
        }
        // SIGKILL on Linux; through the handle, so our end of the pipe stays open to drain it.
        child.toHandle().destroyForcibly();
        assertTrue(child.waitFor(30, TimeUnit.SECONDS), "child did not die");
        // Acks printed before the kill landed may still be buffered in the pipe: they count too.
        while ((line = lines.readLine()) != null) {
          if (line.startsWith("ack ")) {
            String[] f = line.split(" ");
            acked.add(
                new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]), Long.parseLong(f[3])});
          }
        }
      }
      assertTrue(acksThisRun > 0, "run " + run + " acknowledged nothing (seed " + seed + ")");
      totalAcks += acksThisRun;
      verify(dir, acked, seed, run);
    }
    assertTrue(totalAcks >= KILLS);
  }

  private static void verify(Path dir, List<long[]> acked, long seed, int run) throws Exception {
    try (LsmEngine engine =
        LsmEngine.open(
            CrashChild.config(dir, run), NioFileSystem.INSTANCE, new SimpleMeterRegistry())) {
      long newestGeneration =
          engine.tables().stream().mapToLong(t -> t.generation()).max().orElse(0);
      System.out.printf(
          "kill %d: %d acknowledged writes so far, %d live tables (newest generation %d),"
              + " %d commit-log bytes to replay%n",
          run, acked.size(), engine.tables().size(), newestGeneration, engine.commitLogBytes());
      for (long[] a : acked) {
        Cell expected = CrashChild.cellFor((int) a[0], (int) a[1], a[2]);
        Cell actual = engine.get(expected.key());
        assertEquals(
            expected,
            actual,
            "acknowledged write lost or changed after kill " + run + " (seed " + seed + ")");
      }
    }
  }
}
