package io.frsm.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.lsm.LsmConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
  /** The example shipped in the repository (and in the Docker image). */
  private static final Path EXAMPLE = Path.of("..", "config", "frsm.yaml");

  private static final String MINIMAL =
      "node:\n  id: 3\n  dataDirectory: /d\nzookeeper:\n  connect: zk:2181\n";

  @Test
  void shippedExample_loads_withThePapersDefaults() {
    FrsmConfig c = ConfigLoader.load(EXAMPLE, Map.of());
    assertEquals(1, c.nodeId());
    assertEquals("frsm", c.clusterId());
    assertEquals(Duration.ofSeconds(5), c.boundedDelay());
    assertEquals(List.of(Path.of("/var/lib/frsm/commitlog")), c.commitLogDirectories());
    LsmConfig defaults = LsmConfig.builder(Path.of("/var/lib/frsm/data")).build();
    assertEquals(defaults.memtableLifetime(), c.lsm().memtableLifetime());
    assertEquals(defaults.maxCommitLogSizeOnDiskBytes(), c.lsm().maxCommitLogSizeOnDiskBytes());
    assertEquals(
        defaults.compactionThroughputLimitBytesPerSecond(),
        c.lsm().compactionThroughputLimitBytesPerSecond());
    assertEquals(defaults.sstableBlockSizeBytes(), c.lsm().sstableBlockSizeBytes());
    assertEquals(7400, c.peerAddress().getPort());
    assertEquals(3, c.initialNodes());
    assertEquals(Duration.ofSeconds(2), c.lease());
    assertEquals(1000, c.clockDriftPpm());
    assertTrue(c.leaderOnlyReads());
  }

  @Test
  void leaderOnlyReads_canBeTurnedOff_andMustBeABoolean() {
    FrsmConfig c =
        ConfigLoader.parse(MINIMAL + "consensus:\n  leaderOnlyReads: false\n", "t", Map.of());
    assertFalse(c.leaderOnlyReads());
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    MINIMAL + "consensus:\n  leaderOnlyReads: sometimes\n", "t", Map.of()));
    assertTrue(e.getMessage().contains("consensus.leaderOnlyReads"), e.getMessage());
  }

  @Test
  void initialNodesAndLease_areRead() {
    FrsmConfig c =
        ConfigLoader.parse(
            MINIMAL + "cluster:\n  initialNodes: 5\nconsensus:\n  lease: 3s\n", "t", Map.of());
    assertEquals(5, c.initialNodes());
    assertEquals(Duration.ofSeconds(3), c.lease());
  }

  @Test
  void everyKey_isInTheShippedExample_andDocumented() throws Exception {
    String example = Files.readString(EXAMPLE);
    String operations = Files.readString(Path.of("..", "docs", "OPERATIONS.md"));
    for (String key : ConfigLoader.keys()) {
      String leaf = key.substring(key.indexOf('.') + 1);
      assertTrue(example.contains(leaf + ":"), "config/frsm.yaml lacks " + key);
      assertTrue(operations.contains("`" + key + "`"), "docs/OPERATIONS.md lacks `" + key + "`");
    }
  }

  @Test
  void unknownKey_isAnErrorNamingIt() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.parse(MINIMAL + "lsm:\n  memtableFlushSize: 1MiB\n", "t", Map.of()));
    assertTrue(e.getMessage().contains("'lsm.memtableFlushSize'"), e.getMessage());
  }

  @Test
  void invalidValues_areErrorsNamingTheKey() {
    for (String bad :
        List.of(
            "lsm:\n  memtableLifetime: 30 minutes\n",
            "lsm:\n  blockCacheSizeBytes: lots\n",
            "lsm:\n  numberOfCompactionThreads: 0\n",
            "ring:\n  vnodes: 0\n",
            "cluster:\n  initialNodes: 2\n",
            "consensus:\n  lease: 1ms\n",
            "node:\n  peerAddress: nohostport\n")) {
      String yaml =
          bad.startsWith("node:")
              ? bad + "  id: 1\n  dataDirectory: /d\nzookeeper:\n  connect: z:1\n"
              : MINIMAL + bad;
      ConfigException e =
          assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "t", Map.of()), bad);
      String key = bad.substring(bad.indexOf("\n  ") + 3, bad.indexOf(':', bad.indexOf("\n  ")));
      assertTrue(e.getMessage().contains(key), e.getMessage() + " should name " + key);
    }
  }

  @Test
  void missingRequiredKey_isAnError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.parse("node:\n  id: 1\n  dataDirectory: /d\n", "t", Map.of()));
    assertTrue(e.getMessage().contains("zookeeper.connect"), e.getMessage());
  }

  @Test
  void environment_overridesTheFile_andTyposAreCaught() {
    FrsmConfig c =
        ConfigLoader.parse(
            MINIMAL,
            "t",
            Map.of(
                "FRSM_NODE_ID", "7",
                "FRSM_LSM_MEMTABLE_FLUSH_SIZE_BYTES", "8MiB",
                "FRSM_CONSENSUS_BOUNDED_DELAY", "750ms",
                "FRSM_JAVA_OPTS", "-Xmx1g",
                "PATH", "/bin"));
    assertEquals(7, c.nodeId());
    assertEquals(8L << 20, c.lsm().memtableFlushSizeBytes());
    assertEquals(Duration.ofMillis(750), c.boundedDelay());
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.parse(MINIMAL, "t", Map.of("FRSM_NODE_IDD", "1")));
    assertTrue(e.getMessage().contains("FRSM_NODE_IDD"), e.getMessage());
  }

  @Test
  void environmentNames_followTheDocumentedRule() {
    assertEquals("FRSM_NODE_ID", ConfigLoader.environmentName("node.id"));
    assertEquals(
        "FRSM_LSM_MAX_COMMIT_LOG_SIZE_ON_DISK_BYTES",
        ConfigLoader.environmentName("lsm.maxCommitLogSizeOnDiskBytes"));
  }

  @Test
  void notYaml_orNotAMapping_isAClearError() {
    assertThrows(ConfigException.class, () -> ConfigLoader.parse("node: [unclosed", "t", Map.of()));
    assertThrows(ConfigException.class, () -> ConfigLoader.parse("- a\n- b\n", "t", Map.of()));
    assertThrows(ConfigException.class, () -> ConfigLoader.parse("id: 3\n", "t", Map.of()));
  }
}
