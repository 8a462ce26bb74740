package io.frsm.server.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link EmbeddedExample} as its Javadoc and docs/OPERATIONS.md tell users to, and checks that
 * it did what it printed: against a given ZooKeeper, the cluster formed there and every node left
 * it cleanly, and the nodes' stores hold the key's history (created, replaced, deleted after the
 * version the thin client read); without one, it starts its own.
 */
class EmbeddedExampleIT {
  private static final Pattern VERSION = Pattern.compile("\\((\\d+), (\\d+)\\)");

  @Test
  void againstAGivenZooKeeper_doesWhatItPrints(@TempDir Path dir) throws Exception {
    Path data = dir.resolve("data");
    String clusterId = "example-it";
    Version replaced;
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"))) {
      String printed =
          run(
              "--zookeeper",
              zookeeper.connectString(),
              "--dir",
              data.toString(),
              "--cluster",
              clusterId);

      for (int id = 1; id <= 3; id++) {
        assertTrue(printed.contains("node " + id + " (boot 1): peers at "), printed);
      }
      Matcher written = find("created at (\\(.*?\\)), replaced at (\\(.*?\\))", printed);
      Version created = version(written.group(1));
      replaced = version(written.group(2));
      assertTrue(replaced.compareTo(created) > 0, printed);
      assertTrue(printed.contains("stale CAS refused; the key is at " + replaced), printed);
      assertTrue(printed.contains("thin client reads \"hello, world\" at " + replaced), printed);
      assertTrue(printed.contains("deleted; present now: false"), printed);
      assertTrue(printed.contains("stopped 3 nodes"), printed);

      // ZooKeeper: the cluster formed from the three nodes, and each deregistered when it closed.
      ZkLayout layout = new ZkLayout(clusterId);
      // The nodes' znodes grant access to their ZooKeeper identity only.
      ZooKeeperCredential credential =
          ZooKeeperCredential.read(data.resolve("certs").resolve("zookeeper.credential"));
      try (CuratorFramework zk =
          ZooKeeperAccess.builder(zookeeper.connectString(), credential)
              .retryPolicy(new RetryOneTime(100))
              .build()) {
        zk.start();
        ClusterShape shape = ClusterShape.read(zk, layout);
        assertEquals(List.of(1, 2, 3), shape.nodeIds());
        assertEquals(3, shape.replicationFactor());
        assertEquals(List.of(), zk.getChildren().forPath(layout.members()));
      }
    }

    // The stores: a quorum of the replicas accepted the delete of the version the thin client read.
    int deleted = 0;
    for (int id = 1; id <= 3; id++) {
      Cell cell = storedCell(data.resolve("node-" + id), "greeting");
      if (cell != null && cell.accepted() != null && cell.accepted().isDelete()) {
        AcceptedValue delete = cell.accepted();
        // The delete is the next instance after the version it expected.
        assertEquals(replaced.epoch(), delete.epoch(), "node " + id);
        assertTrue(delete.timestamp() > replaced.timestamp(), "node " + id);
        deleted++;
      }
    }
    assertTrue(deleted >= 2, "the delete is on " + deleted + " of 3 replicas");
  }

  @Test
  void withoutAZooKeeper_startsItsOwn(@TempDir Path dir) throws Exception {
    String printed = run("--dir", dir.toString());
    assertTrue(printed.contains("started ZooKeeper at 127.0.0.1:"), printed);
    assertTrue(printed.contains("deleted; present now: false"), printed);
    assertTrue(printed.contains("stopped 3 nodes"), printed);
  }

  @Test
  void anUnknownArgument_isAUsageError() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> EmbeddedExample.run(new String[] {"--zk", "x"}, System.out));
    assertTrue(e.getMessage().contains("--zk"), e.getMessage());
    assertThrows(
        IllegalArgumentException.class,
        () -> EmbeddedExample.run(new String[] {"--dir"}, System.out));
  }

  private static String run(String... args) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (PrintStream out = new PrintStream(bytes, true, UTF_8)) {
      EmbeddedExample.run(args, out);
    }
    String printed = bytes.toString(UTF_8);
    System.out.print(printed);
    return printed;
  }

  private static Matcher find(String regex, String text) {
    Matcher m = Pattern.compile(regex).matcher(text);
    assertTrue(m.find(), "no \"" + regex + "\" in:\n" + text);
    return m;
  }

  private static Version version(String printed) {
    Matcher m = VERSION.matcher(printed);
    assertTrue(m.matches(), printed);
    return new Version(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
  }

  /** The key's cell in a stopped node's store, read with the engine directly. */
  private static Cell storedCell(Path nodeData, String key) throws Exception {
    try (LsmEngine engine =
        LsmEngine.open(
            LsmConfig.builder(nodeData).build(),
            NioFileSystem.INSTANCE,
            new SimpleMeterRegistry())) {
      return engine.get(Key.of(key.getBytes(UTF_8)));
    }
  }
}
