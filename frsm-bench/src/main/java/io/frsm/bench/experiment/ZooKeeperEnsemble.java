package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import java.io.IOException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A three-server ZooKeeper ensemble in this process on loopback, each quorum peer with its own data
 * directory and {@code forceSync=yes} (every transaction-log write is fsynced before it is
 * acknowledged, as frsm's commit log is): the ZooKeeper side of experiment 6.
 */
final class ZooKeeperEnsemble implements KvSystem {
  static final int SERVERS = 3;
  private static final int START_TIMEOUT_MILLIS = 60_000;

  private final List<ZooKeeperServerEmbedded> servers = new ArrayList<>();
  private final List<String> clientAddresses = new ArrayList<>();
  private final int clientSessions;

  private ZooKeeperEnsemble(int clientSessions) {
    this.clientSessions = clientSessions;
  }

  /**
   * Starts the ensemble under {@code baseDir}; the clients it hands out open {@code clientSessions}
   * sessions spread over the servers.
   */
  static ZooKeeperEnsemble start(Path baseDir, int clientSessions) throws Exception {
    return start(baseDir, clientSessions, 0);
  }

  /**
   * As {@link #start(Path, int)}, with ZooKeeper's {@code zookeeper.flushDelay}: its transaction
   * log waits up to {@code flushDelayMillis} for more transactions before a sync (0, its default,
   * syncs as soon as its queue runs dry) — the counterpart of frsm's group-commit window. The
   * setting is ZooKeeper's JVM-wide one (a static of {@code ZooKeeperServer}), set here for as long
   * as this ensemble runs.
   */
  static ZooKeeperEnsemble start(Path baseDir, int clientSessions, long flushDelayMillis)
      throws Exception {
    flushDelay(flushDelayMillis);
    ZooKeeperEnsemble e = new ZooKeeperEnsemble(clientSessions);
    // Nine distinct ports: asked for while all are held, so no two peers are handed the same one.
    int[] ports = freePorts(3 * SERVERS);
    int[] clientPorts = new int[SERVERS];
    List<String> serverLines = new ArrayList<>();
    for (int i = 0; i < SERVERS; i++) {
      clientPorts[i] = ports[3 * i];
      serverLines.add("127.0.0.1:" + ports[3 * i + 1] + ":" + ports[3 * i + 2]);
      e.clientAddresses.add("127.0.0.1:" + clientPorts[i]);
    }
    try {
      for (int i = 0; i < SERVERS; i++) {
        Path dir = baseDir.resolve("zk-" + (i + 1));
        Path data = dir.resolve("data");
        Files.createDirectories(data);
        Files.writeString(data.resolve("myid"), Integer.toString(i + 1), StandardCharsets.US_ASCII);
        Properties p = new Properties();
        p.setProperty("clientPort", Integer.toString(clientPorts[i]));
        p.setProperty("clientPortAddress", "127.0.0.1");
        p.setProperty("dataDir", data.toString());
        p.setProperty("tickTime", "500");
        p.setProperty("initLimit", "20");
        p.setProperty("syncLimit", "10");
        p.setProperty("forceSync", "yes");
        p.setProperty("admin.enableServer", "false");
        p.setProperty("maxClientCnxns", "0");
        p.setProperty("4lw.commands.whitelist", "srvr,ruok,stat");
        for (int s = 0; s < SERVERS; s++) {
          p.setProperty("server." + (s + 1), serverLines.get(s));
        }
        e.servers.add(
            ZooKeeperServerEmbedded.builder()
                .baseDir(dir)
                .configuration(p)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build());
      }
      // A peer's start(timeout) waits until it serves, which needs a quorum: start all, then wait.
      List<Thread> starters = new ArrayList<>();
      List<Exception> failures = new CopyOnWriteArrayList<>();
      for (ZooKeeperServerEmbedded s : e.servers) {
        Thread t =
            new Thread(
                () -> {
                  try {
                    s.start(START_TIMEOUT_MILLIS);
                  } catch (Exception ex) {
                    failures.add(ex);
                  }
                },
                "zk-ensemble-start");
        t.start();
        starters.add(t);
      }
      for (Thread t : starters) {
        t.join();
      }
      if (!failures.isEmpty()) {
        throw new IllegalStateException("ZooKeeper ensemble did not start", failures.get(0));
      }
      // A started peer may still be electing or syncing with the leader; the clients pin each
      // session to one server, so every server must serve before the first client connects.
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MILLIS);
      for (int port : clientPorts) {
        awaitServing(port, deadline);
      }
      return e;
    } catch (Exception | Error ex) {
      e.close();
      throw ex;
    }
  }

  private static int[] freePorts(int count) throws IOException {
    List<ServerSocket> held = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        held.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
  }

  /**
   * Waits until the server on {@code clientPort} answers ZooKeeper's {@code srvr} command as a
   * leader or follower (it serves clients), or fails at {@code deadlineNanos}.
   */
  private static void awaitServing(int clientPort, long deadlineNanos) throws IOException {
    String last = "no answer";
    while (System.nanoTime() - deadlineNanos < 0) {
      last = fourLetterWord(clientPort, "srvr");
      if (last.contains("Mode: leader") || last.contains("Mode: follower")) {
        return;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50)); // poll interval, not a wait
    }
    throw new IOException(
        "ZooKeeper server 127.0.0.1:" + clientPort + " does not serve; it answered: " + last);
  }

  private static String fourLetterWord(int port, String word) {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(2_000);
      socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    } catch (IOException notYet) {
      return notYet.toString();
    }
  }

  @Override
  public String name() {
    return "ZooKeeper";
  }

  @Override
  public FrsmClient client() {
    return ZooKeeperKvClient.connect(clientAddresses, clientSessions, false);
  }

  /** Gets sync with the leader first: linearizable reads, as the counter check needs. */
  @Override
  public FrsmClient checkClient() {
    return ZooKeeperKvClient.connect(clientAddresses, SERVERS, true);
  }

  @Override
  public void close() {
    for (ZooKeeperServerEmbedded s : servers) {
      try {
        s.close();
      } catch (RuntimeException ex) {
        System.err.println("ZooKeeper server did not stop cleanly: " + ex);
      }
    }
    try {
      flushDelay(0);
    } catch (ReflectiveOperationException ex) {
      throw new IllegalStateException(ex);
    }
  }

  /**
   * Sets ZooKeeper's flush delay and its write-queue poll time to {@code millis} (ZooKeeper derives
   * the poll time as a third of the delay, which rounds a 1 ms delay to no wait at all). Both are
   * package-private statics without a public setter.
   */
  private static void flushDelay(long millis) throws ReflectiveOperationException {
    for (String setter : new String[] {"setFlushDelay", "setMaxWriteQueuePollTime"}) {
      Method m = ZooKeeperServer.class.getDeclaredMethod(setter, long.class);
      m.setAccessible(true);
      m.invoke(null, millis);
    }
  }
}
