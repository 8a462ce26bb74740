package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.killAll;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 24 point 3, "a fatal node exits with a non-zero status (configurable) so supervisors
 * restart it", on a real {@code frsm server} process (docs/OPERATIONS.md "Failure policy").
 *
 * <p>The fatal error is a storage failure, not a test hook: while the one-node cluster serves, each
 * of its commit-log directories is replaced by a plain file, so the next segment the log opens
 * cannot be created; the write that needed it fails, which the node must treat as fatal (a persist
 * it could not make durable). Corrupt data would not do: the engine quarantines a damaged table and
 * fences a damaged log, and the node repairs itself, which is not fatal. Segments are small and
 * grow as written (no preallocated spare, which the log could adopt without touching the
 * directory), so a few hundred KiB of writes need a new one.
 *
 * <p>With {@code server.exitOnFatalError: true} (the default) the process exits with 70; with
 * {@code false} it stays up and its {@code /health} answers 503.
 */
@MultiProcess
class ExitOnFatalErrorIT {
  private static final String CLUSTER_ID = "fatal-exit";
  private static final int EXIT_FATAL = 70;

  /** A deadline, not a wait: on a quiet machine the node serves within seconds. */
  private static final Duration START = Duration.ofMinutes(3);

  private static final Duration FATAL = Duration.ofSeconds(60);
  private static final Path NODE_OUTPUT = Path.of("target", "exit-on-fatal-error");

  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void stop() {
    killAll(processes);
  }

  @Test
  void aCommitLogThatCannotBeWritten_endsTheProcess_withStatus70(@TempDir Path dir)
      throws Exception {
    try (Cluster cluster = Cluster.start(dir, true, processes)) {
      cluster.breakCommitLogAndWrite(() -> !cluster.process.isAlive());
      assertTrue(
          cluster.process.waitFor(FATAL.toSeconds(), TimeUnit.SECONDS),
          "the process should have exited\n" + cluster.outputTail());
      assertEquals(EXIT_FATAL, cluster.process.exitValue(), cluster.outputTail());
      assertTrue(
          cluster.output().contains("frsm node 1 stopped on a fatal error"),
          "the reason is printed\n" + cluster.outputTail());
    }
  }

  @Test
  void withExitOnFatalErrorFalse_theProcessStaysUp_andHealthAnswers503(@TempDir Path dir)
      throws Exception {
    try (Cluster cluster = Cluster.start(dir, false, processes)) {
      cluster.breakCommitLogAndWrite(() -> cluster.health() == 503);
      assertEquals(503, cluster.health());
      assertTrue(cluster.process.isAlive(), "the process stays up\n" + cluster.outputTail());
      assertTrue(
          cluster.output().contains("stops serving"),
          "the fatal error is logged\n" + cluster.outputTail());
      // Still up and still answering 503 once more: it did not exit on its way.
      assertEquals(503, cluster.health());
      assertTrue(cluster.process.isAlive());
    }
  }

  /** ZooKeeper in this JVM and one {@code frsm server} process: a cluster of one, RF 1. */
  private static final class Cluster implements AutoCloseable {
    private final Path dir;
    private final EmbeddedZooKeeper zookeeper;
    private final ClusterCertificates certs;
    private final int metricsPort;
    private final Path output;
    private Process process;

    private Cluster(Path dir, EmbeddedZooKeeper zookeeper, ClusterCertificates certs, int port)
        throws IOException {
      this.dir = dir;
      this.zookeeper = zookeeper;
      this.certs = certs;
      this.metricsPort = port;
      Files.createDirectories(NODE_OUTPUT);
      this.output = Files.createTempFile(NODE_OUTPUT, "node-1-", ".log");
    }

    static Cluster start(Path dir, boolean exitOnFatalError, List<Process> processes)
        throws Exception {
      ClusterCertificates certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
      EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
      Cluster cluster = null;
      try {
        cluster = new Cluster(dir, zookeeper, certs, freePort());
        cluster.launch(exitOnFatalError, certs.issueNode(1), processes);
        Cluster c = cluster;
        awaitCondition(
            () -> {
              if (!c.process.isAlive()) {
                throw new AssertionError("the node exited while starting\n" + c.outputTail());
              }
              return c.health() == 200;
            },
            START,
            "the node to serve (/health 200)");
        return cluster;
      } catch (Exception | Error e) {
        if (cluster != null) {
          cluster.close();
        } else {
          zookeeper.close();
        }
        throw e;
      }
    }

    private List<Path> commitLogDirectories() {
      return List.of(dir.resolve("node-1/log-a"), dir.resolve("node-1/log-b"));
    }

    private void launch(boolean exitOnFatalError, TlsFiles tls, List<Process> processes)
        throws IOException {
      Path config = dir.resolve("node-1/frsm.yaml");
      Files.createDirectories(config.getParent());
      Files.writeString(config, yaml(exitOnFatalError, tls), UTF_8);
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      ProcessBuilder pb =
          new ProcessBuilder(
                  java,
                  "-ea",
                  "-Xmx256m",
                  "-XX:+UseSerialGC",
                  "-XX:TieredStopAtLevel=1",
                  "-cp",
                  System.getProperty("java.class.path"),
                  "io.frsm.server.cli.Frsm",
                  "server",
                  "--config",
                  config.toString())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      // Configuration comes from the file only: a stray FRSM_* variable must not change the test.
      pb.environment().keySet().removeIf(k -> k.startsWith("FRSM_"));
      process = pb.start();
      processes.add(process);
    }

    private String yaml(boolean exitOnFatalError, TlsFiles tls) {
      return String.join(
          "\n",
          "cluster:",
          "  id: " + CLUSTER_ID,
          "  initialNodes: 1",
          "ring:",
          "  replicationFactor: 1",
          "node:",
          "  id: 1",
          "  dataDirectory: " + dir.resolve("node-1/data"),
          "  commitLogDirectories:",
          "    - " + commitLogDirectories().get(0),
          "    - " + commitLogDirectories().get(1),
          "  peerAddress: 127.0.0.1:0",
          "  clientAddress: 127.0.0.1:0",
          "  advertisedHost: 127.0.0.1",
          "  drainTimeout: 2s",
          "zookeeper:",
          "  connect: " + zookeeper.connectString(),
          "  sessionTimeout: 10s",
          "  credentialFile: " + certs.node(),
          "  readerCredentialFile: " + certs.reader(),
          "security:",
          "  caBundle: " + tls.caBundle(),
          "  certificateChain: " + tls.certificateChain(),
          "  privateKey: " + tls.privateKey(),
          "metrics:",
          "  port: " + metricsPort,
          "server:",
          "  exitOnFatalError: " + exitOnFatalError,
          "lsm:",
          "  memtableFlushSizeBytes: 256KiB",
          "  blockCacheSizeBytes: 1MiB",
          "  numberOfCompactionThreads: 1",
          // Small segments that grow as written: the next one is a new file in the directory.
          "  commitLogRotationThresholdBytes: 64KiB",
          "  maxCommitLogSizeOnDiskBytes: 1MiB",
          "  commitLogPreallocateSegments: false",
          "");
    }

    /**
     * Replaces every commit-log directory with a plain file (the open segment stays writable: its
     * file is open), then writes until {@code done}: the writes fill the open segments, and the
     * next segment cannot be created.
     */
    void breakCommitLogAndWrite(java.util.function.BooleanSupplier done) throws Exception {
      for (Path log : commitLogDirectories()) {
        Path moved = log.resolveSibling(log.getFileName() + "-moved-away");
        Files.move(log, moved);
        Files.writeString(log, "not a directory", UTF_8);
      }
      byte[] value = new byte[4096];
      try (FrsmClient client =
          MultiProcessSupport.thinClient(certs, zookeeper.connectString(), Duration.ofSeconds(5))) {
        long deadline = System.nanoTime() + FATAL.toNanos();
        int i = 0;
        while (!done.getAsBoolean()) {
          if (System.nanoTime() - deadline > 0) {
            throw new AssertionError("no fatal error after " + i + " writes\n" + outputTail());
          }
          try {
            client.create(("k-" + i++).getBytes(UTF_8), value);
          } catch (FrsmException expected) {
            // Once the log fails, writes fail (unknown outcome, refused, or the node is gone).
          }
        }
      } catch (FrsmException clientGone) {
        // Building or closing the client failed because the node exited: checked by the caller.
        if (!done.getAsBoolean()) {
          throw clientGone;
        }
      }
    }

    /** {@code GET /health}'s status; -1 if nothing answers. */
    int health() {
      try {
        HttpURLConnection c =
            (HttpURLConnection)
                URI.create("http://127.0.0.1:" + metricsPort + "/health").toURL().openConnection();
        c.setConnectTimeout(2000);
        c.setReadTimeout(5000);
        try {
          return c.getResponseCode();
        } finally {
          c.disconnect();
        }
      } catch (IOException e) {
        return -1;
      }
    }

    String output() {
      try {
        return Files.readString(output, StandardCharsets.ISO_8859_1);
      } catch (IOException e) {
        return "(unreadable: " + e + ")";
      }
    }

    String outputTail() {
      String all = output();
      return "---- " + output + "\n" + all.substring(Math.max(0, all.length() - 6000));
    }

    @Override
    public void close() {
      if (process != null) {
        killAll(List.of(process));
      }
      zookeeper.close();
    }

    /**
     * A port the OS had free a moment ago (the metrics endpoint takes no port 0: 0 turns it off).
     */
    private static int freePort() throws IOException {
      try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        return s.getLocalPort();
      }
    }
  }
}
