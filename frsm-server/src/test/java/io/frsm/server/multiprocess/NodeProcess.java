package io.frsm.server.multiprocess;

import io.frsm.client.transport.tls.TlsFiles;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One frsm node as a child JVM running {@code frsm server --config <yaml>}: its own data and
 * commit-log directories (kept across incarnations), listen ports picked by the OS on loopback, and
 * one output file per incarnation (stdout and stderr merged) under {@link Cluster#logDir} for
 * diagnosis. {@link #kill} is {@code kill -9}: no drain, no flush, no deregistration.
 */
final class NodeProcess {
  /**
   * What the nodes of one test cluster share; {@link #node} makes each node's process from it.
   *
   * @param root where each node keeps its directories, {@code node-<id>} (kept across incarnations)
   * @param logDir where each incarnation's output file goes
   * @param zookeeper the connect string the nodes register through
   * @param sessionTimeout the nodes' ZooKeeper session timeout
   * @param boundedDelay the nodes' {@code consensus.boundedDelay}
   * @param certs the cluster's CA, which issues each node's certificate, and the files of the
   *     nodes' ZooKeeper identity and of the read-only one their znodes grant; the nodes run in the
   *     cluster these were issued for
   * @param all every process started, so the caller's shutdown hook can kill them all
   */
  record Cluster(
      Path root,
      Path logDir,
      String zookeeper,
      Duration sessionTimeout,
      Duration boundedDelay,
      ClusterCertificates certs,
      List<Process> all) {

    /** The same cluster with the nodes made from now on reaching ZooKeeper at {@code connect}. */
    Cluster viaZooKeeper(String connect) {
      return new Cluster(root, logDir, connect, sessionTimeout, boundedDelay, certs, all);
    }

    /**
     * Node {@code id}, not started, on {@code root/node-<id>} with a certificate issued for it: the
     * server runs mutual TLS from its files.
     */
    NodeProcess node(int id) throws Exception {
      return new NodeProcess(this, id, root.resolve("node-" + id), certs.issueNode(id));
    }
  }

  private final Cluster cluster;
  private final int nodeId;
  private final Path dataRoot;
  private final TlsFiles tls;
  private Process process;
  private Path log;

  /** Null: the node runs {@code frsm server}; else {@code FaultyNodeMain} polls this file. */
  private Path faultControl;

  private int incarnation;

  /** Whether the node starts with {@code cluster.join: true} (waits to be added or to replace). */
  private boolean join;

  /**
   * Lines added under {@code lsm:} in the node's configuration (e.g. {@code scrubStartDelay: 1s}).
   */
  private List<String> lsmSettings = List.of();

  /** Lines added under {@code consensus:} (e.g. {@code handOff: true}). */
  private List<String> consensusSettings = List.of();

  private NodeProcess(Cluster cluster, int nodeId, Path dataRoot, TlsFiles tls) {
    this.cluster = cluster;
    this.nodeId = nodeId;
    this.dataRoot = dataRoot;
    this.tls = tls;
  }

  /**
   * From the next {@link #start} on, runs the node as {@code FaultyNodeMain} (the same node and
   * configuration, with its peer links and wall clock driven by {@code controlFile}).
   */
  synchronized NodeProcess withFaultControl(Path controlFile) {
    this.faultControl = controlFile;
    return this;
  }

  /** From the next {@link #start} on, adds {@code settings} ("key: value") to the lsm section. */
  synchronized NodeProcess withLsmSettings(List<String> settings) {
    this.lsmSettings = List.copyOf(settings);
    return this;
  }

  /**
   * From the next {@link #start} on, adds {@code settings} ("key: value") to the consensus section.
   */
  synchronized NodeProcess withConsensusSettings(List<String> settings) {
    this.consensusSettings = List.copyOf(settings);
    return this;
  }

  /** Where the node keeps its SSTables (and its manifest). */
  Path dataDirectory() {
    return dataRoot.resolve("data");
  }

  /** The node's commit-log directories, one per stripe. */
  List<Path> commitLogDirectories() {
    return List.of(dataRoot.resolve("log-a"), dataRoot.resolve("log-b"));
  }

  /**
   * From the next {@link #start} on, the node starts with {@code cluster.join: true}: not one of
   * the formed cluster's nodes, it registers and waits for a membership change to add it.
   */
  synchronized NodeProcess joining() {
    this.join = true;
    return this;
  }

  int nodeId() {
    return nodeId;
  }

  /** How many times this node was started; the node's boot counter should say the same. */
  int incarnation() {
    return incarnation;
  }

  /** Starts a new incarnation on the same directories. */
  synchronized void start() throws IOException {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException("node " + nodeId + " still runs");
    }
    incarnation++;
    Files.createDirectories(dataRoot);
    Files.createDirectories(cluster.logDir());
    Path config = dataRoot.resolve("frsm.yaml");
    Files.writeString(config, yaml(), StandardCharsets.UTF_8);
    log = cluster.logDir().resolve("node-" + nodeId + "-incarnation-" + incarnation + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java,
                "-ea",
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path")));
    if (faultControl == null) {
      command.addAll(List.of("io.frsm.server.cli.Frsm", "server", "--config", config.toString()));
    } else {
      command.addAll(
          List.of(
              "io.frsm.server.node.FaultyNodeMain", config.toString(), faultControl.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.redirectOutput(log.toFile());
    // Configuration comes from the file only: a stray FRSM_* variable must not change the test.
    pb.environment().keySet().removeIf(k -> k.startsWith("FRSM_"));
    process = pb.start();
    cluster.all().add(process);
  }

  private String yaml() {
    File data = dataDirectory().toFile();
    List<String> lines =
        new ArrayList<>(
            List.of(
                "cluster:",
                "  id: " + cluster.certs().clusterId(),
                "  join: " + join,
                "node:",
                "  id: " + nodeId,
                "  rack: rack-" + nodeId,
                "  dataDirectory: " + data,
                "  commitLogDirectories:",
                "    - " + commitLogDirectories().get(0),
                "    - " + commitLogDirectories().get(1),
                "  peerAddress: 127.0.0.1:0",
                "  clientAddress: 127.0.0.1:0",
                "  advertisedHost: 127.0.0.1",
                "zookeeper:",
                "  connect: " + cluster.zookeeper(),
                "  sessionTimeout: " + cluster.sessionTimeout().toMillis() + "ms",
                "  credentialFile: " + cluster.certs().node(),
                "  readerCredentialFile: " + cluster.certs().reader(),
                "consensus:",
                "  boundedDelay: " + cluster.boundedDelay().toMillis() + "ms"));
    consensusSettings.forEach(setting -> lines.add("  " + setting));
    lines.addAll(
        List.of(
            "security:",
            "  caBundle: " + tls.caBundle(),
            "  certificateChain: " + tls.certificateChain(),
            "  privateKey: " + tls.privateKey(),
            "metrics:",
            "  port: 0",
            "lsm:",
            "  memtableFlushSizeBytes: 256KiB",
            "  blockCacheSizeBytes: 1MiB",
            "  numberOfCompactionThreads: 1"));
    lsmSettings.forEach(setting -> lines.add("  " + setting));
    lines.add("");
    return String.join("\n", lines);
  }

  synchronized boolean isAlive() {
    return process != null && process.isAlive();
  }

  /** {@code kill -9} and wait until the process is gone. */
  synchronized void kill(Duration timeout) throws InterruptedException {
    if (process == null) {
      return;
    }
    process.toHandle().destroyForcibly();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("node " + nodeId + " survived kill -9 for " + timeout);
    }
  }

  /**
   * {@code kill -TERM} — a graceful stop: the node drains, hands its ranges over and closes — and
   * waits until the process is gone; returns its exit status (143 for a stop by SIGTERM).
   */
  synchronized int stop(Duration timeout) throws InterruptedException {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("node " + nodeId + " does not run");
    }
    process.toHandle().destroy();
    if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new IllegalStateException("node " + nodeId + " did not stop within " + timeout);
    }
    return process.exitValue();
  }

  /** {@code kill -STOP}: the process stops where it is, its sockets open, until {@link #resume}. */
  synchronized void pause() throws IOException, InterruptedException {
    signal("STOP");
  }

  /** {@code kill -CONT}. */
  synchronized void resume() throws IOException, InterruptedException {
    signal("CONT");
  }

  private void signal(String name) throws IOException, InterruptedException {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("node " + nodeId + " does not run");
    }
    Process kill =
        new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
            .redirectErrorStream(true)
            .start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -" + name + " of node " + nodeId + " failed");
    }
  }

  /** Whether this incarnation's output contains {@code text}. */
  synchronized boolean outputContains(String text) {
    try {
      return log != null
          && Files.exists(log)
          && Files.readString(log, StandardCharsets.ISO_8859_1).contains(text);
    } catch (IOException e) {
      return false;
    }
  }

  /** The last line of this incarnation's output that contains {@code text}, or null. */
  synchronized String lastLineContaining(String text) {
    return lastLineContainingAny(List.of(text));
  }

  /**
   * The last line of this incarnation's output that contains any of {@code texts}, or null: which
   * of several state lines the node logged last.
   */
  synchronized String lastLineContainingAny(List<String> texts) {
    if (log == null || !Files.exists(log)) {
      return null;
    }
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
      for (int i = lines.size() - 1; i >= 0; i--) {
        String line = lines.get(i);
        if (texts.stream().anyMatch(line::contains)) {
          return line;
        }
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The last {@code lines} lines of this incarnation's output, for a failure report. */
  synchronized String outputTail(int lines) {
    if (log == null) {
      return "(node " + nodeId + " never started)";
    }
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.ISO_8859_1);
      List<String> tail = new ArrayList<>(all.subList(Math.max(0, all.size() - lines), all.size()));
      return "---- " + log + " (last " + tail.size() + " lines)\n" + String.join("\n", tail);
    } catch (IOException e) {
      return "---- " + log + ": unreadable: " + e;
    }
  }
}
