package io.frsm.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The frsm command end to end: demo, cli against a local cluster, and wrong command lines. */
class FrsmCommandIT {

  private static final Pattern VERSION = Pattern.compile("\\((\\d+), (\\d+)\\)");

  private record Run(int exitCode, String out, String err) {}

  private static Run frsm(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code =
        Frsm.run(
            List.of(args),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void demo_runsTheWorkload_throughANodeKill_andLosesNoIncrement(@TempDir Path dir) {
    Run r = frsm("demo", "--seconds", "4", "--dir", dir.toString());
    String out = r.out();
    assertEquals(0, r.exitCode(), out + r.err());

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
    try (LocalCluster cluster = LocalCluster.start(dir, 3)) {
      String zk = cluster.zookeeperConnect();
      Run created = frsm("cli", "--zookeeper", zk, "--cluster", "local", "create", "k", "v1");
      assertEquals(0, created.exitCode(), created.out() + created.err());
      assertTrue(created.out().startsWith("created at version ("), created.out());
      Run got = frsm("cli", "--zookeeper", zk, "--cluster", "local", "get", "k");
      assertTrue(got.out().startsWith("v1  @ version ("), got.out());
      Run stale = frsm("cli", "--zookeeper", zk, "--cluster", "local", "cas", "k", "1", "0", "x");
      assertEquals(1, stale.exitCode());
      assertTrue(stale.out().contains("CasMismatchException"), stale.out());
      String[] v1 = version(created.out());
      Run written =
          frsm("cli", "--zookeeper", zk, "--cluster", "local", "cas", "k", v1[0], v1[1], "v2");
      assertEquals(0, written.exitCode(), written.out() + written.err());
      assertTrue(written.out().startsWith("written at version ("), written.out());
      Run fenced = frsm("cli", "--zookeeper", zk, "--cluster", "local", "fence", "k");
      assertEquals(0, fenced.exitCode(), fenced.out() + fenced.err());
      assertTrue(fenced.out().startsWith("v2  @ version ("), fenced.out());
      String[] v3 = version(fenced.out());
      // The fence moved the version on: the one the cas returned is stale now.
      String[] v2 = version(written.out());
      Run staleDelete =
          frsm("cli", "--zookeeper", zk, "--cluster", "local", "delete", "k", v2[0], v2[1]);
      assertEquals(1, staleDelete.exitCode(), staleDelete.out());
      assertTrue(staleDelete.out().contains("CasMismatchException"), staleDelete.out());
      Run deleted =
          frsm("cli", "--zookeeper", zk, "--cluster", "local", "delete", "k", v3[0], v3[1]);
      assertEquals(0, deleted.exitCode(), deleted.out() + deleted.err());
      assertEquals("deleted", deleted.out().strip());
      Run gone = frsm("cli", "--zookeeper", zk, "--cluster", "local", "get", "k");
      assertEquals("(absent)", gone.out().strip());
      Run badVersion =
          frsm("cli", "--zookeeper", zk, "--cluster", "local", "delete", "k", "x", "1");
      assertEquals(2, badVersion.exitCode());
      assertTrue(badVersion.err().contains("EPOCH TIMESTAMP"), badVersion.err());
      Run ring = frsm("cli", "--zookeeper", zk, "--cluster", "local", "ring");
      assertEquals(0, ring.exitCode(), ring.out());
      assertTrue(ring.out().contains("nodes [1, 2, 3]"), ring.out());
      Run leader = frsm("cli", "--zookeeper", zk, "--cluster", "local", "leader", "k");
      assertTrue(leader.out().contains("natural leader node"), leader.out());
      assertTrue(leader.out().contains("current leader node "), leader.out());
    }
  }

  /** EPOCH and TIMESTAMP from the first "(epoch, timestamp)" in a cli answer. */
  private static String[] version(String out) {
    Matcher m = VERSION.matcher(out);
    assertTrue(m.find(), out);
    return new String[] {m.group(1), m.group(2)};
  }

  @Test
  void wrongCommandLines_printUsage_andExit2() {
    assertEquals(2, frsm().exitCode());
    Run unknown = frsm("frobnicate");
    assertEquals(2, unknown.exitCode());
    assertTrue(unknown.err().contains("unknown command 'frobnicate'"), unknown.err());
    Run badOption = frsm("demo", "--secs", "3");
    assertEquals(2, badOption.exitCode());
    assertTrue(badOption.err().contains("unknown option --secs"), badOption.err());
    assertEquals(2, frsm("local", "--nodes", "2").exitCode());
    Run missing = frsm("cli", "get", "k");
    assertEquals(2, missing.exitCode());
    assertTrue(missing.err().contains("--zookeeper is required"), missing.err());
    assertEquals(0, frsm("help").exitCode());
  }
}
