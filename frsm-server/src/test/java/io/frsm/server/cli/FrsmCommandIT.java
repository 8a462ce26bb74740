package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.local.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The frsm command end to end: the demo as a user runs it (its own JVM, its logging as configured
 * for a user), and the cli against a local cluster. Wrong command lines: FrsmCommandLineTest.
 */
class FrsmCommandIT {

  private static final Pattern VERSION = Pattern.compile("\\((\\d+), (\\d+)\\)");

  /** A warning or error logged by frsm or a library (java.util.logging's level names). */
  private static final Pattern LOGGED_PROBLEM = Pattern.compile("(?m)^.*\\b(WARNING|SEVERE)\\b.*$");

  private static FrsmRun frsm(String... args) {
    return FrsmRun.of(args);
  }

  /**
   * {@code frsm cli} against the local cluster through {@code target} ({@code --seeds} or {@code
   * --zookeeper}) at {@code address}, presenting the certificate in {@code tls}.
   */
  private static FrsmRun cli(String target, String address, TlsFiles tls, String... command) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "cli",
                target,
                address,
                "--cluster",
                "local",
                "--ca",
                tls.caBundle().toString(),
                "--cert",
                tls.certificateChain().toString(),
                "--key",
                tls.privateKey().toString()));
    args.addAll(List.of(command));
    return FrsmRun.of(args.toArray(String[]::new));
  }

  @Test
  void demo_runsTheWorkload_throughANodeKill_andLosesNoIncrement_quietly(@TempDir Path dir)
      throws Exception {
    String out;
    try (FrsmProcess demo =
        FrsmProcess.start(
            dir.resolve("demo.out"),
            "demo",
            "--seconds",
            "4",
            "--dir",
            dir.resolve("data").toString())) {
      int exit = demo.awaitExit(Duration.ofMinutes(3));
      out = demo.output();
      assertEquals(0, exit, out);
    }
    // Healthy: nothing logged a warning or an error (the kill is the demo's own doing).
    List<String> logged = LOGGED_PROBLEM.matcher(out).results().map(m -> m.group()).toList();
    assertEquals(List.of(), logged, out);

    // The node killed is the one that held the hottest key's range at that moment; another node
    // takes the range over, and the killed node comes back.
    Matcher killed =
        Pattern.compile(
                ">>> killing node (\\d+), which leads range (\\d+) \\(the hottest key's\\) now")
            .matcher(out);
    assertTrue(killed.find(), out);
    String victim = killed.group(1);
    String range = killed.group(2);
    assertTrue(out.contains("range " + range + " (the hottest key's) is killed at"), out);
    Matcher successor =
        Pattern.compile(">>> node (\\d+) took range " + range + " over \\d+ ms after the kill")
            .matcher(out);
    assertTrue(successor.find(), out);
    assertTrue(!successor.group(1).equals(victim), "the range moved to another node: " + out);
    assertTrue(out.contains(">>> node " + victim + " is back"), out);

    // Not a terminal: one progress line per second, no carriage returns.
    assertTrue(Pattern.compile("(?m)^t=\\s*\\d+s\\s+\\d+ ops/s").matcher(out).find(), out);
    assertTrue(out.indexOf('\r') < 0, "no live line outside a terminal");

    assertTrue(out.contains("ops/s over"), out);
    for (String type : new String[] {"get", "cas"}) {
      Matcher latency =
          Pattern.compile(
                  "(?m)^\\s+"
                      + type
                      + "\\s+(\\d+) ops\\s+p50\\s+([\\d.]+) us\\s+p99\\s+([\\d.]+) us$")
              .matcher(out);
      assertTrue(latency.find(), "p50/p99 of " + type + ": " + out);
      assertTrue(Long.parseLong(latency.group(1)) > 0, out);
      double p50 = Double.parseDouble(latency.group(2));
      double p99 = Double.parseDouble(latency.group(3));
      assertTrue(p50 > 0 && p50 <= p99, type + " p50 " + p50 + " p99 " + p99);
    }
    Matcher cas =
        Pattern.compile(
                "CAS operations \\(all running nodes\\): (\\d+) warm, (\\d+) cold;"
                    + " multi-phase fraction [\\d.]+%")
            .matcher(out);
    assertTrue(cas.find(), out);
    assertTrue(Long.parseLong(cas.group(1)) + Long.parseLong(cas.group(2)) > 0, out);
    Matcher reads =
        Pattern.compile(
                "reads by mode \\(all running nodes\\): (\\d+) leader-only, (\\d+) quorum,"
                    + " (\\d+) mutating quorum")
            .matcher(out);
    assertTrue(reads.find(), out);
    assertTrue(
        Long.parseLong(reads.group(1))
                + Long.parseLong(reads.group(2))
                + Long.parseLong(reads.group(3))
            > 0,
        out);
    assertTrue(out.contains("acknowledged increments lost or doubled: 0"), out);
  }

  @Test
  void cli_operatesOnALocalCluster(@TempDir Path dir) throws Exception {
    try (LocalCluster cluster = LocalCluster.start(dir, LocalCommand.CLUSTER_ID, 3)) {
      String zk = cluster.zookeeperConnect();
      // The read-only ZooKeeper identity: enough to find the nodes and read the ring.
      String reader = cluster.zookeeperReaderCredentialFile().toString();
      TlsFiles tls = cluster.adminClientFiles();
      String seeds =
          String.join(
              ",",
              cluster.nodes().stream()
                  .map(n -> "127.0.0.1:" + n.clientAddress().getPort())
                  .toList());
      FrsmRun created = cli("--seeds", seeds, tls, "create", "k", "v1");
      assertEquals(0, created.exitCode(), created.out() + created.err());
      assertTrue(created.out().startsWith("created at version ("), created.out());
      FrsmRun got = cli("--seeds", seeds, tls, "get", "k");
      assertTrue(got.out().startsWith("v1  @ version ("), got.out());
      FrsmRun stale = cli("--seeds", seeds, tls, "cas", "k", "1", "0", "x");
      assertEquals(1, stale.exitCode());
      assertTrue(stale.out().contains("CasMismatchException"), stale.out());
      String[] v1 = version(created.out());
      FrsmRun written =
          cli(
              "--zookeeper",
              zk,
              tls,
              "--zookeeper-credential",
              reader,
              "cas",
              "k",
              v1[0],
              v1[1],
              "v2");
      assertEquals(0, written.exitCode(), written.out() + written.err());
      assertTrue(written.out().startsWith("written at version ("), written.out());
      FrsmRun fenced = cli("--zookeeper", zk, tls, "--zookeeper-credential", reader, "fence", "k");
      assertEquals(0, fenced.exitCode(), fenced.out() + fenced.err());
      assertTrue(fenced.out().startsWith("v2  @ version ("), fenced.out());
      String[] v3 = version(fenced.out());
      // The fence moved the version on: the one the cas returned is stale now.
      String[] v2 = version(written.out());
      FrsmRun staleDelete =
          cli(
              "--zookeeper",
              zk,
              tls,
              "--zookeeper-credential",
              reader,
              "delete",
              "k",
              v2[0],
              v2[1]);
      assertEquals(1, staleDelete.exitCode(), staleDelete.out());
      assertTrue(staleDelete.out().contains("CasMismatchException"), staleDelete.out());
      FrsmRun deleted =
          cli(
              "--zookeeper",
              zk,
              tls,
              "--zookeeper-credential",
              reader,
              "delete",
              "k",
              v3[0],
              v3[1]);
      assertEquals(0, deleted.exitCode(), deleted.out() + deleted.err());
      assertEquals("deleted", deleted.out().strip());
      FrsmRun gone = cli("--zookeeper", zk, tls, "--zookeeper-credential", reader, "get", "k");
      assertEquals("(absent)", gone.out().strip());
      FrsmRun badVersion =
          cli("--zookeeper", zk, tls, "--zookeeper-credential", reader, "delete", "k", "x", "1");
      assertEquals(2, badVersion.exitCode());
      assertTrue(badVersion.err().contains("EPOCH TIMESTAMP"), badVersion.err());
      FrsmRun ring = cli("--zookeeper", zk, tls, "--zookeeper-credential", reader, "ring");
      assertEquals(0, ring.exitCode(), ring.out());
      assertTrue(ring.out().contains("nodes [1, 2, 3]"), ring.out());
      FrsmRun leader = cli("--zookeeper", zk, tls, "--zookeeper-credential", reader, "leader", "k");
      assertTrue(leader.out().contains("natural leader node"), leader.out());
      assertTrue(leader.out().contains("current leader node "), leader.out());
      FrsmRun neither = frsm("cli", "--cluster", "local", "get", "k");
      assertEquals(2, neither.exitCode());
      assertTrue(neither.err().contains("--seeds or --zookeeper"), neither.err());
      FrsmRun ringBySeeds = frsm("cli", "--seeds", seeds, "--cluster", "local", "ring");
      assertEquals(2, ringBySeeds.exitCode());
      assertTrue(ringBySeeds.err().contains("give --zookeeper"), ringBySeeds.err());
    }
  }

  /** EPOCH and TIMESTAMP from the first "(epoch, timestamp)" in a cli answer. */
  private static String[] version(String out) {
    Matcher m = VERSION.matcher(out);
    assertTrue(m.find(), out);
    return new String[] {m.group(1), m.group(2)};
  }
}
