package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The tests' ZooKeeper restart is a real one (issue 27): a session and its ephemeral node survive a
 * stop and a start on the same data, synced or not ({@link EmbeddedZooKeeper#startUnsynced}), as
 * they survive a restart of a real server.
 */
class EmbeddedZooKeeperRestartIT {
  private static final int SESSION_MS = 3_000;

  @ParameterizedTest(name = "synced {0}")
  @ValueSource(booleans = {true, false})
  void aSessionAndItsEphemeralNodeSurviveARestart(boolean synced, @TempDir Path dir)
      throws Exception {
    EmbeddedZooKeeper server = start(dir, synced, EmbeddedZooKeeper.freeLoopbackPort());
    int port = server.port();
    AtomicReference<Watcher.Event.KeeperState> last = new AtomicReference<>();
    CountDownLatch connected = new CountDownLatch(1);
    CountDownLatch reconnected = new CountDownLatch(1);
    CountDownLatch disconnected = new CountDownLatch(1);
    ZooKeeper zk =
        new ZooKeeper(
            server.connectString(),
            SESSION_MS,
            e -> {
              if (e.getType() != Watcher.Event.EventType.None) {
                return;
              }
              last.set(e.getState());
              switch (e.getState()) {
                case SyncConnected -> {
                  if (disconnected.getCount() == 0) {
                    reconnected.countDown();
                  }
                  connected.countDown();
                }
                case Disconnected -> disconnected.countDown();
                default -> {}
              }
            });
    try {
      assertTrue(connected.await(30, TimeUnit.SECONDS), "connected");
      long session = zk.getSessionId();
      String node = zk.create("/e", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);

      server.close();
      assertTrue(disconnected.await(30, TimeUnit.SECONDS), "the client saw the server go");
      server = start(dir, synced, port);

      assertTrue(reconnected.await(30, TimeUnit.SECONDS), "reconnected, last state " + last);
      assertEquals(session, zk.getSessionId(), "the same session");
      assertTrue(zk.exists(node, false) != null, "its ephemeral node survived the restart");
    } finally {
      zk.close();
      server.close();
    }
  }

  private static EmbeddedZooKeeper start(Path dir, boolean synced, int port) throws Exception {
    return synced ? EmbeddedZooKeeper.start(dir, port) : EmbeddedZooKeeper.startUnsynced(dir, port);
  }
}
