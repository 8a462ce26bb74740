package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.awaitServing;
import static io.frsm.server.multiprocess.MultiProcessSupport.observer;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.Versioned;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node killed with SIGKILL and restarted at once ends its previous process's ZooKeeper session
 * (docs/OPERATIONS.md "Fail-over timing", {@code PreviousSession}): with a 30 s session timeout its
 * new registration — which the old session's member record would have blocked until that session
 * expired — appears well within the timeout, and the cluster takes writes to every range again. A
 * second process on the same directories is refused ({@code DataDirectoryLock}) and the running one
 * is unharmed.
 */
@MultiProcess
class MultiProcessRestartIT {
  private static final String CLUSTER_ID = "mp-restart";
  private static final int NODES = 3;
  private static final int KEYS = 64;

  /** Long on purpose: the old session must not simply expire while the node restarts. */
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(2);
  private static final Duration READY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration WRITE_DEADLINE = Duration.ofSeconds(60);
  private static final Path NODE_OUTPUT = Path.of("target", "multiprocess");

  private final List<Process> processes = new CopyOnWriteArrayList<>();

  @Test
  void aKilledNode_restarted_endsItsOldSession_andRegistersBeforeItWouldHaveExpired(
      @TempDir Path dir) throws Exception {
    ClusterCertificates certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
    Thread killAll =
        new Thread(() -> MultiProcessSupport.killAll(processes), "multiprocess-it-kill-nodes");
    Runtime.getRuntime().addShutdownHook(killAll);
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        CuratorFramework zk = observer(zookeeper.connectString(), certs.reader())) {
      NodeProcess.Cluster cluster =
          new NodeProcess.Cluster(
              dir,
              NODE_OUTPUT.resolve("restart-" + System.nanoTime()),
              zookeeper.connectString(),
              SESSION_TIMEOUT,
              BOUNDED_DELAY,
              certs,
              processes);
      List<NodeProcess> nodes = new ArrayList<>();
      for (int id = 1; id <= NODES; id++) {
        nodes.add(cluster.node(id));
      }
      for (NodeProcess n : nodes) {
        n.start();
      }
      for (NodeProcess n : nodes) {
        awaitServing(n, READY_DEADLINE);
      }
      try (FrsmClient client =
          MultiProcessSupport.thinClient(certs, zookeeper.connectString(), Duration.ofSeconds(3))) {
        writeEveryKey(client, "before");

        NodeProcess victim = nodes.get(0);
        String member = new ZkLayout(CLUSTER_ID).member(victim.nodeId());
        long oldOwner = owner(zk, member);
        assertNotEquals(0, oldOwner, "the victim's member record is ephemeral");
        victim.kill(Duration.ofSeconds(10));
        long killedAt = System.nanoTime();
        victim.start();
        awaitCondition(
            () -> {
              long o = owner(zk, member);
              return o != 0 && o != oldOwner;
            },
            SESSION_TIMEOUT.minusSeconds(5),
            "node 1 registered in a new session before its old one could expire");
        long registeredMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        awaitServing(victim, READY_DEADLINE);
        assertTrue(
            victim.outputContains("ended the ZooKeeper session"),
            "the restart ended its old session; " + victim.outputTail(40));
        writeEveryKey(client, "after");
        long writtenMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
        System.out.printf(
            "restart: node 1 registered again %d ms after its kill -9, and %d keys over every range"
                + " were written again %d ms after it (session timeout %d ms)%n",
            registeredMs, KEYS, writtenMs, SESSION_TIMEOUT.toMillis());

        // A second process on node 2's directories is refused, and node 2 goes on serving.
        NodeProcess twin = cluster.node(2);
        twin.start();
        awaitCondition(() -> !twin.isAlive(), READY_DEADLINE, "the second process to exit");
        assertTrue(
            twin.outputContains("is in use: another process"),
            "refused for the directory lock; " + twin.outputTail(40));
        assertTrue(nodes.get(1).isAlive(), "node 2 still runs");
        writeEveryKey(client, "twin");
      } finally {
        MultiProcessSupport.killAll(processes);
      }
    } finally {
      MultiProcessSupport.killAll(processes);
      Runtime.getRuntime().removeShutdownHook(killAll);
    }
  }

  /** The session that owns {@code path} (0: none, or the znode is missing). */
  private static long owner(CuratorFramework zk, String path) {
    try {
      Stat stat = zk.checkExists().forPath(path);
      return stat == null ? 0 : stat.getEphemeralOwner();
    } catch (Exception e) {
      return 0;
    }
  }

  /**
   * Creates {@code KEYS} keys of their own for {@code tag}, each retried until its deadline: a
   * failed attempt is settled with a fence, and counts if the key then holds this value.
   */
  private static void writeEveryKey(FrsmClient client, String tag) {
    for (int i = 0; i < KEYS; i++) {
      byte[] key = ("restart-" + tag + "-" + i).getBytes(US_ASCII);
      byte[] value = (tag + "-" + i).getBytes(US_ASCII);
      long deadline = System.nanoTime() + WRITE_DEADLINE.toNanos();
      while (!written(client, key, value)) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("key " + i + " not written by " + tag);
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
      }
      assertArrayEquals(value, client.get(key).orElseThrow().value(), "read back");
    }
  }

  private static boolean written(FrsmClient client, byte[] key, byte[] value) {
    try {
      client.create(key, value);
      return true;
    } catch (RuntimeException failed) {
      try {
        Optional<Versioned> now = client.fence(key); // an earlier attempt may have taken effect
        return now.isPresent() && Arrays.equals(now.get().value(), value);
      } catch (RuntimeException notYet) {
        return false;
      }
    }
  }
}
