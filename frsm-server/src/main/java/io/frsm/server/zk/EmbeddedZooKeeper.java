package io.frsm.server.zk;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A single ZooKeeper server inside this JVM, on loopback: for {@code frsm local}, the demo and
 * tests. Production runs against a real ensemble.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
  private final ZooKeeperServerEmbedded server;
  private final int port;

  private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, int port) {
    this.server = server;
    this.port = port;
  }

  /** Starts a server with its data under {@code baseDir} on a free loopback port. */
  public static EmbeddedZooKeeper start(Path baseDir) throws Exception {
    return start(baseDir, freeLoopbackPort());
  }

  public static EmbeddedZooKeeper start(Path baseDir, int port) throws Exception {
    return start(baseDir, port, true);
  }

  /**
   * As {@link #start(Path, int)}, but ZooKeeper does not fsync its transaction log: what it wrote
   * survives a restart of this process, not a crash of the machine. For tests that restart
   * ZooKeeper but measure the nodes: on a loaded disk one sync can take seconds, and ZooKeeper
   * answers no session's ping meanwhile, so every session could expire at once.
   */
  public static EmbeddedZooKeeper startUnsynced(Path baseDir, int port) throws Exception {
    return start(baseDir, port, false);
  }

  private static EmbeddedZooKeeper start(Path baseDir, int port, boolean forceSync)
      throws Exception {
    java.nio.file.Files.createDirectories(baseDir);
    Properties p = new Properties();
    p.setProperty("clientPort", Integer.toString(port));
    p.setProperty("clientPortAddress", "127.0.0.1");
    p.setProperty("dataDir", baseDir.resolve("data").toString());
    p.setProperty("tickTime", "500");
    p.setProperty("minSessionTimeout", "1000");
    p.setProperty("maxSessionTimeout", "60000");
    p.setProperty("admin.enableServer", "false");
    p.setProperty("maxClientCnxns", "0");
    p.setProperty("forceSync", forceSync ? "yes" : "no");
    // start(timeout) probes the server with the "srvr" four-letter word.
    p.setProperty("4lw.commands.whitelist", "srvr,ruok,stat");
    ZooKeeperServerEmbedded server =
        ZooKeeperServerEmbedded.builder()
            .baseDir(baseDir)
            .configuration(p)
            .exitHandler(ExitHandler.LOG_ONLY)
            .build();
    server.start(30_000);
    return new EmbeddedZooKeeper(server, port);
  }

  /** A free loopback port (another process may take it before it is bound). */
  public static int freeLoopbackPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** The client port (the same after a restart on it). */
  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:port}. */
  public String connectString() {
    return "127.0.0.1:" + port;
  }

  @Override
  public void close() {
    server.close();
  }
}
