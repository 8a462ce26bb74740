package io.frsm.server.multiprocess;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryJsonWriter;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.LinearizabilityChecker;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
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

  /** Waits until the node's current incarnation logged that it serves and is registered. */
  static void awaitServing(NodeProcess n, Duration deadline) {
    String serves = "node " + n.nodeId() + " serves";
    String boot = "node " + n.nodeId() + " boot " + n.incarnation() + " started";
    awaitCondition(
        () -> {
          if (!n.isAlive()) {
            fail("node " + n.nodeId() + " exited while starting");
          }
          return n.outputContains(serves) && n.outputContains(boot);
        },
        deadline,
        "node " + n.nodeId() + " to serve as incarnation " + n.incarnation());
  }

  /** Lets the load run for {@code d}: a point of a fault schedule, not a synchronization. */
  static void runFor(Duration d, FaultLoad load) {
    long until = System.nanoTime() + d.toNanos();
    awaitCondition(
        () -> System.nanoTime() - until >= 0 || !load.stillRunning(),
        d.plusSeconds(30),
        "the end of a " + d.toMillis() + " ms phase");
    load.throwFailures();
  }

  /** Writes the recorded history as JSON lines (docs/formats/history.md) to {@code history}. */
  static void writeHistory(HistoryRecorder recorder, Path history) throws IOException {
    Files.createDirectories(history.getParent());
    try (Writer out = Files.newBufferedWriter(history)) {
      HistoryJsonWriter.write(recorder.history(), out);
    }
  }

  /**
   * Asserts the recorded history is linearizable, an unknown outcome taking effect at most {@code
   * boundNanos} after its call; the failure names the history file and the replay command.
   */
  static void assertLinearizable(
      HistoryRecorder recorder, long boundNanos, Path history, String replay) {
    CheckResult result = LinearizabilityChecker.checkBoundedFirst(recorder.history(), boundNanos);
    assertTrue(
        result.isLinearizable(),
        () -> result.explain() + "\nhistory: " + history.toAbsolutePath() + "; " + replay);
  }

  /** A thin client with the test's read-write certificate, reaching the nodes through ZooKeeper. */
  static FrsmClient thinClient(ClusterCertificates certs, String zookeeper, Duration timeout) {
    return FrsmClient.builder()
        .zookeeper(zookeeper)
        .zookeeperCredential(certs.reader())
        .clusterId(certs.clusterId())
        .operationTimeout(timeout)
        .tls(
            certs.client().caBundle(),
            certs.client().certificateChain(),
            certs.client().privateKey())
        .build();
  }
}
