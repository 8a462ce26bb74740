package io.frsm.server.multiprocess;

import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;

/** What the multi-process suites share: their waits, their observer session, their cleanup. */
final class MultiProcessSupport {
  private MultiProcessSupport() {}

  /** Polls {@code condition} every 20 ms until it holds; fails naming {@code what} at the end. */
  static void awaitCondition(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  /** A session with the read-only identity: the nodes' znodes grant it nothing more. */
  static CuratorFramework observer(String connect, Path credential) {
    CuratorFramework zk =
        ZooKeeperAccess.builder(connect, ZooKeeperCredential.read(credential))
            .retryPolicy(new RetryOneTime(100))
            .build();
    zk.start();
    return zk;
  }

  /** Kills every process with SIGKILL and waits (bounded) for each to end. */
  static void killAll(List<Process> processes) {
    for (Process p : processes) {
      p.toHandle().destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
