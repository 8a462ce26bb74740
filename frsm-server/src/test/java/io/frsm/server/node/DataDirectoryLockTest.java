package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One process per data and commit-log directory (docs/FORMATS.md "LOCK"): a second claim is
 * refused, naming the directory and the holder's pid; the claim ends with its holder — closed, or
 * killed with SIGKILL in another process.
 */
class DataDirectoryLockTest {
  @Test
  void aSecondClaimInTheSameProcess_isRefused_untilTheFirstIsClosed(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    DataDirectoryLock first = DataDirectoryLock.acquire(List.of(data, dir.resolve("log")));
    DataDirectoryLock.InUseException refused =
        assertThrows(
            DataDirectoryLock.InUseException.class,
            () -> DataDirectoryLock.acquire(List.of(dir.resolve("other"), data)));
    assertTrue(refused.getMessage().contains(data.toString()), refused.getMessage());
    assertTrue(
        refused.getMessage().contains("pid " + ProcessHandle.current().pid()),
        refused.getMessage());
    // The refused claim let go of what it took before the refusal.
    DataDirectoryLock.acquire(List.of(dir.resolve("other"))).close();
    first.close();
    DataDirectoryLock.acquire(List.of(data)).close();
  }

  @Test
  void aDirectoryNamedTwice_isClaimedOnce(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("data");
    try (DataDirectoryLock lock =
        DataDirectoryLock.acquire(List.of(data, data.resolve("x").getParent(), data))) {
      assertTrue(Files.exists(data.resolve(DataDirectoryLock.FILE_NAME)));
    }
  }

  @Test
  void aClaimHeldByAnotherProcess_isRefused_andEndsWhenThatProcessIsKilled(@TempDir Path dir)
      throws Exception {
    Path data = dir.resolve("data");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process holder =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                DataDirectoryLockHolder.class.getName(),
                data.toString())
            .redirectErrorStream(true)
            .start();
    try {
      BufferedReader out =
          new BufferedReader(
              new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8));
      assertEquals(DataDirectoryLockHolder.HELD, out.readLine(), "the holder took the lock");
      DataDirectoryLock.InUseException refused =
          assertThrows(
              DataDirectoryLock.InUseException.class,
              () -> DataDirectoryLock.acquire(List.of(data)));
      assertTrue(refused.getMessage().contains("pid " + holder.pid()), refused.getMessage());
      holder.destroyForcibly(); // SIGKILL: no shutdown hook, no close
      assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder died");
      DataDirectoryLock.acquire(List.of(data)).close();
    } finally {
      holder.destroyForcibly();
    }
  }
}
