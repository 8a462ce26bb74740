package io.frsm.server.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigLoaderTest {
  /** Most tests here are about other keys: a plaintext node, said so explicitly. */
  private static final String INSECURE = "security:\n  insecure: true\n";

  /** The example shipped in the repository (and in the Docker image). */
  private static final Path EXAMPLE = Path.of("..", "config", "frsm.yaml");

  private static final String MINIMAL =
      "node:\n  id: 3\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: zk:2181\n"
          + INSECURE;

  @Test
  void shippedExample_loads_withThePapersDefaults() {
    FrsmConfig c = ConfigLoader.load(EXAMPLE, Map.of());
    assertEquals(1, c.nodeId());
    assertEquals("frsm", c.clusterId());
    assertEquals(Duration.ofSeconds(5), c.get(ConsensusKeys.BOUNDED_DELAY));
    assertEquals(
        List.of(Path.of("/var/lib/frsm/commitlog")), c.get(NodeKeys.COMMIT_LOG_DIRECTORIES));
    LsmConfig defaults = LsmConfig.builder(Path.of("/var/lib/frsm/data")).build();
    assertEquals(defaults.memtableLifetime(), c.lsm().memtableLifetime());
    assertEquals(defaults.maxCommitLogSizeOnDiskBytes(), c.lsm().maxCommitLogSizeOnDiskBytes());
    assertEquals(
        defaults.compactionThroughputLimitBytesPerSecond(),
        c.lsm().compactionThroughputLimitBytesPerSecond());
    assertEquals(defaults.sstableBlockSizeBytes(), c.lsm().sstableBlockSizeBytes());
    assertEquals(7400, c.peerAddress().getPort());
    assertEquals(3, c.get(NodeKeys.INITIAL_NODES));
    assertEquals(Duration.ofMillis(1500), c.get(ConsensusKeys.LEASE)); // not the paper's 2 s
    assertEquals(1000, c.get(ConsensusKeys.CLOCK_DRIFT_PPM));
    assertTrue(c.get(ConsensusKeys.LEADER_ONLY_READS));
    assertEquals(3, c.get(RingKeys.REPLICATION_FACTOR));
    assertEquals(16, c.get(RingKeys.VNODES));
    assertEquals(Duration.ofSeconds(10), c.get(NodeKeys.DRAIN_TIMEOUT));
    assertEquals(Duration.ofMillis(250), c.get(ConsensusKeys.CLOCK_SKEW_BOUND));
    assertEquals(Duration.ofMillis(20), c.get(ConsensusKeys.HEDGE));
    assertEquals(Duration.ofMillis(200), c.get(ConsensusKeys.ROUND_TIMEOUT));
    assertEquals(Duration.ofMillis(50), c.get(ConsensusKeys.BACKOFF_MAX));
    assertEquals(Duration.ofMillis(2), c.get(ConsensusKeys.TICK_INTERVAL));
    assertEquals(64L << 20, c.get(ConsensusKeys.CLOCK_CACHE_BYTES));
    assertEquals(0, c.get(TransportKeys.THREADS), "0: by the machine's CPUs");
    assertEquals(CorePlacement.AUTO, c.get(ConsensusKeys.CORE_ON_TRANSPORT_LOOP));
    TransportConfig transport = TransportConfig.builder("frsm").build();
    assertEquals(transport.maxFrameBytes(), c.transport().maxFrameBytes());
    assertEquals(
        transport.maxQueuedFramesPerConnection(), c.transport().maxQueuedFramesPerConnection());
    assertEquals(
        transport.writeBufferLowWaterMarkBytes(), c.transport().writeBufferLowWaterMarkBytes());
    assertEquals(
        transport.writeBufferHighWaterMarkBytes(), c.transport().writeBufferHighWaterMarkBytes());
    assertEquals(transport.connectTimeout(), c.transport().connectTimeout());
    assertEquals(transport.reconnectBackoffMin(), c.transport().reconnectBackoffMin());
    assertEquals(transport.reconnectBackoffMax(), c.transport().reconnectBackoffMax());
  }

  @Test
  void shippedExample_equalsTheDefaults() {
    // The example documents the defaults: loading it must give what a file holding only the
    // required keys gives (the example's listen addresses are its own choice: they have no
    // default).
    FrsmConfig example = ConfigLoader.load(EXAMPLE, Map.of());
    FrsmConfig defaults =
        ConfigLoader.parse(
            "node:\n  id: 1\n  rack: rack1\n  dataDirectory: /var/lib/frsm/data\n"
                + "  peerAddress: 0.0.0.0:7400\n  clientAddress: 0.0.0.0:7500\n"
                + "  commitLogDirectories: [/var/lib/frsm/commitlog]\n"
                + "zookeeper:\n  connect: localhost:2181\n"
                + "  credentialFile: /etc/frsm/zookeeper.credential\n"
                + "security:\n  caBundle: /etc/frsm/tls/ca.pem\n"
                + "  certificateChain: /etc/frsm/tls/node.pem\n"
                + "  privateKey: /etc/frsm/tls/node-key.pem\n",
            "t",
            Map.of());
    for (ConfigKey<?> key : ConfigKeys.all()) {
      assertEquals(
          defaults.get(key),
          example.get(key),
          "config/frsm.yaml sets " + key + " to another value than its default");
    }
    // LsmConfig prints every setting, with the directories.
    assertEquals(defaults.lsm().toString(), example.lsm().toString());
    assertEquals(defaults.transport(), example.transport());
  }

  @Test
  void everyTimingAndTransportKey_isRead_fromTheFileAndTheEnvironment() {
    FrsmConfig c =
        ConfigLoader.parse(
            MINIMAL
                + "consensus:\n  hedge: 30ms\n  roundTimeout: 300ms\n  backoffMax: 70ms\n"
                + "  tickInterval: 3ms\n  clockSkewBound: 0ms\n  clockCacheBytes: 1MiB\n"
                + "transport:\n  threads: 3\n  maxFrameBytes: 20MiB\n"
                + "  maxQueuedFramesPerConnection: 99\n  writeBufferLowWaterMarkBytes: 1KiB\n"
                + "  writeBufferHighWaterMarkBytes: 2KiB\n  connectTimeout: 5s\n"
                + "  reconnectBackoffMin: 1ms\n  reconnectBackoffMax: 9s\n",
            "t",
            Map.of(
                "FRSM_NODE_DRAIN_TIMEOUT", "0s",
                "FRSM_CONSENSUS_ROUND_TIMEOUT", "400ms",
                "FRSM_TRANSPORT_MAX_QUEUED_FRAMES_PER_CONNECTION", "7",
                "FRSM_RING_REPLICATION_FACTOR", "5",
                "FRSM_CLUSTER_INITIAL_NODES", "5"));
    assertEquals(Duration.ofMillis(30), c.get(ConsensusKeys.HEDGE));
    assertEquals(
        Duration.ofMillis(400), c.get(ConsensusKeys.ROUND_TIMEOUT), "the environment wins");
    assertEquals(Duration.ofMillis(70), c.get(ConsensusKeys.BACKOFF_MAX));
    assertEquals(Duration.ofMillis(3), c.get(ConsensusKeys.TICK_INTERVAL));
    assertEquals(Duration.ZERO, c.get(ConsensusKeys.CLOCK_SKEW_BOUND));
    assertEquals(Duration.ZERO, c.get(NodeKeys.DRAIN_TIMEOUT));
    assertEquals(1L << 20, c.get(ConsensusKeys.CLOCK_CACHE_BYTES));
    assertEquals(3, c.get(TransportKeys.THREADS));
    assertEquals(20 << 20, c.transport().maxFrameBytes());
    assertEquals(7, c.transport().maxQueuedFramesPerConnection());
    assertEquals(1024, c.transport().writeBufferLowWaterMarkBytes());
    assertEquals(2048, c.transport().writeBufferHighWaterMarkBytes());
    assertEquals(Duration.ofSeconds(5), c.transport().connectTimeout());
    assertEquals(Duration.ofMillis(1), c.transport().reconnectBackoffMin());
    assertEquals(Duration.ofSeconds(9), c.transport().reconnectBackoffMax());
    assertEquals(5, c.get(RingKeys.REPLICATION_FACTOR));
    assertEquals(5, c.get(NodeKeys.INITIAL_NODES));
  }

  @Test
  void commitLogPreallocation_isOnByDefault_andCanBeTurnedOff() {
    assertTrue(ConfigLoader.parse(MINIMAL, "t", Map.of()).lsm().commitLogPreallocateSegments());
    assertTrue(
        ConfigLoader.load(EXAMPLE, Map.of()).lsm().commitLogPreallocateSegments(),
        "the shipped file keeps the default");
    FrsmConfig off =
        ConfigLoader.parse(
            MINIMAL + "lsm:\n  commitLogPreallocateSegments: false\n", "t", Map.of());
    assertFalse(off.lsm().commitLogPreallocateSegments());
  }

  @Test
  void coreOnTransportLoop_isAutoTrueOrFalse() {
    for (Map.Entry<String, CorePlacement> e :
        Map.of(
                "auto", CorePlacement.AUTO,
                "Auto", CorePlacement.AUTO,
                "true", CorePlacement.TRANSPORT_LOOPS,
                "false", CorePlacement.OWN_THREADS)
            .entrySet()) {
      FrsmConfig c =
          ConfigLoader.parse(
              MINIMAL + "consensus:\n  coreOnTransportLoop: " + e.getKey() + "\n", "t", Map.of());
      assertEquals(e.getValue(), c.get(ConsensusKeys.CORE_ON_TRANSPORT_LOOP), e.getKey());
    }
    assertEquals(
        CorePlacement.TRANSPORT_LOOPS,
        ConfigLoader.parse(MINIMAL, "t", Map.of("FRSM_CONSENSUS_CORE_ON_TRANSPORT_LOOP", "true"))
            .get(ConsensusKeys.CORE_ON_TRANSPORT_LOOP));
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    MINIMAL + "consensus:\n  coreOnTransportLoop: sometimes\n", "t", Map.of()));
    assertTrue(e.getMessage().contains("consensus.coreOnTransportLoop"), e.getMessage());
  }

  @Test
  void theGroupCommitWindow_isAutoByDefault_orADurationInMicroseconds() {
    FrsmConfig c =
        ConfigLoader.parse(MINIMAL + "lsm:\n  commitLogGroupCommitWindow: 500us\n", "t", Map.of());
    assertEquals(
        GroupCommitWindow.fixed(Duration.ofNanos(500_000)), c.lsm().commitLogGroupCommitWindow());
    assertEquals(
        GroupCommitWindow.OFF,
        ConfigLoader.parse(MINIMAL + "lsm:\n  commitLogGroupCommitWindow: 0ms\n", "t", Map.of())
            .lsm()
            .commitLogGroupCommitWindow());
    assertEquals(
        GroupCommitWindow.AUTO,
        ConfigLoader.parse(MINIMAL + "lsm:\n  commitLogGroupCommitWindow: AUTO\n", "t", Map.of())
            .lsm()
            .commitLogGroupCommitWindow());
    assertEquals(
        GroupCommitWindow.AUTO,
        ConfigLoader.parse(MINIMAL, "t", Map.of()).lsm().commitLogGroupCommitWindow());
    assertEquals(
        GroupCommitWindow.AUTO,
        ConfigLoader.load(EXAMPLE, Map.of()).lsm().commitLogGroupCommitWindow(),
        "the shipped file keeps the default");
    for (String bad : new String[] {"soon", "101ms"}) {
      ConfigException e =
          assertThrows(
              ConfigException.class,
              () ->
                  ConfigLoader.parse(
                      MINIMAL + "lsm:\n  commitLogGroupCommitWindow: " + bad + "\n",
                      "t",
                      Map.of()));
      assertTrue(e.getMessage().contains("commitLogGroupCommitWindow"), e.getMessage());
    }
  }

  @Test
  void everyKey_hasItsOwnEnvironmentVariable() {
    java.util.Set<String> names = new java.util.HashSet<>();
    for (String key : ConfigLoader.keys()) {
      assertTrue(names.add(ConfigLoader.environmentName(key)), key);
    }
  }

  @Test
  void replicationFactor_fromOneToNine_withAtLeastAsManyInitialNodes() {
    FrsmConfig one =
        ConfigLoader.parse(
            MINIMAL + "ring:\n  replicationFactor: 1\ncluster:\n  initialNodes: 1\n",
            "t",
            Map.of());
    assertEquals(1, one.get(RingKeys.REPLICATION_FACTOR));
    assertEquals(1, one.get(NodeKeys.INITIAL_NODES));
    FrsmConfig five =
        ConfigLoader.parse(
            MINIMAL + "ring:\n  replicationFactor: 5\ncluster:\n  initialNodes: 5\n",
            "t",
            Map.of());
    assertEquals(5, five.get(RingKeys.REPLICATION_FACTOR));
    ConfigException tooFew =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    MINIMAL + "ring:\n  replicationFactor: 5\ncluster:\n  initialNodes: 4\n",
                    "t",
                    Map.of()));
    assertTrue(tooFew.getMessage().contains("'cluster.initialNodes'"), tooFew.getMessage());
    assertTrue(tooFew.getMessage().contains("ring.replicationFactor"), tooFew.getMessage());
  }

  @Test
  void outOfRangeValues_areErrorsNamingTheFullKey() {
    Map<String, String> bad = new java.util.LinkedHashMap<>();
    bad.put("ring:\n  replicationFactor: 0\n", "ring.replicationFactor");
    bad.put("ring:\n  replicationFactor: 10\n", "ring.replicationFactor");
    bad.put("ring:\n  vnodes: 5000\n", "ring.vnodes");
    bad.put("node:\n  drainTimeout: 2h\n", "node.drainTimeout");
    bad.put("zookeeper:\n  sessionTimeout: 0s\n", "zookeeper.sessionTimeout");
    bad.put("consensus:\n  boundedDelay: 0ms\n", "consensus.boundedDelay");
    bad.put("consensus:\n  boundedDelay: 2h\n", "consensus.boundedDelay");
    bad.put("consensus:\n  clockSkewBound: 61m\n", "consensus.clockSkewBound");
    bad.put("consensus:\n  hedge: 0ms\n", "consensus.hedge");
    bad.put("consensus:\n  backoffMax: 0ms\n", "consensus.backoffMax");
    bad.put("consensus:\n  tickInterval: 0ms\n", "consensus.tickInterval");
    bad.put("consensus:\n  clockDriftPpm: 100000\n", "consensus.clockDriftPpm");
    bad.put("consensus:\n  clockCacheBytes: -1\n", "consensus.clockCacheBytes");
    bad.put("consensus:\n  coreThreads: -1\n", "consensus.coreThreads");
    bad.put("consensus:\n  coreThreads: 65\n", "consensus.coreThreads");
    bad.put("transport:\n  threads: -1\n", "transport.threads");
    bad.put("transport:\n  maxFrameBytes: 2GiB\n", "transport.maxFrameBytes");
    bad.put(
        "transport:\n  maxQueuedFramesPerConnection: 0\n",
        "transport.maxQueuedFramesPerConnection");
    bad.put(
        "transport:\n  writeBufferLowWaterMarkBytes: 0\n",
        "transport.writeBufferLowWaterMarkBytes");
    bad.put("transport:\n  connectTimeout: 0ms\n", "transport.connectTimeout");
    bad.put("transport:\n  reconnectBackoffMax: 2h\n", "transport.reconnectBackoffMax");
    bad.put("metrics:\n  port: 70000\n", "metrics.port");
    bad.put("cluster:\n  id: has space\n", "cluster.id");
    bad.put("lsm:\n  maxValueSizeBytes: 3GiB\n", "lsm.maxValueSizeBytes");
    bad.put("lsm:\n  blockCacheSizeBytes: 99999999999999999999\n", "lsm.blockCacheSizeBytes");
    bad.put("lsm:\n  memtableLifetime: 99999999999999999999d\n", "lsm.memtableLifetime");
    bad.put("lsm:\n  bloomBitsPerKey: 1.5\n", "lsm.bloomBitsPerKey");
    for (Map.Entry<String, String> e : bad.entrySet()) {
      ConfigException error =
          assertThrows(
              ConfigException.class,
              () -> ConfigLoader.parse(withMinimal(e.getKey()), "t", Map.of()),
              e.getKey());
      assertTrue(
          error.getMessage().contains("'" + e.getValue() + "'"),
          error.getMessage() + " should name '" + e.getValue() + "'");
    }
    ConfigException rack =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\n  rack: \"a|b\"\n"
                        + "zookeeper:\n  connect: z:1\n",
                    "t",
                    Map.of()));
    assertTrue(rack.getMessage().contains("'node.rack'"), rack.getMessage());
  }

  /** {@code section} (one section's keys) added to MINIMAL, merged if MINIMAL has the section. */
  private static String withMinimal(String section) {
    if (section.startsWith("node:")) {
      return section
          + "  id: 3\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: zk:2181\n"
          + INSECURE;
    }
    if (section.startsWith("zookeeper:")) {
      return section
          + "  connect: zk:2181\nnode:\n  id: 3\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\n"
          + INSECURE;
    }
    return MINIMAL + section;
  }

  @Test
  void aRepeatedSectionOrKey_isAnError_notASilentOverride() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ConfigLoader.parse(MINIMAL + "node:\n  rack: r2\n", "t", Map.of()));
    assertTrue(e.getMessage().contains("duplicate key node"), e.getMessage());
    assertThrows(
        ConfigException.class,
        () -> ConfigLoader.parse(MINIMAL + "ring:\n  vnodes: 8\n  vnodes: 16\n", "t", Map.of()));
  }

  @Test
  void keysThatContradictEachOther_areErrorsNamingBoth() {
    Map<String, List<String>> bad = new java.util.LinkedHashMap<>();
    bad.put(
        "consensus:\n  hedge: 200ms\n  roundTimeout: 200ms\n",
        List.of("consensus.hedge", "consensus.roundTimeout"));
    bad.put(
        "consensus:\n  tickInterval: 30ms\n", List.of("consensus.tickInterval", "consensus.hedge"));
    bad.put(
        "transport:\n  writeBufferLowWaterMarkBytes: 8MiB\n",
        List.of(
            "transport.writeBufferLowWaterMarkBytes", "transport.writeBufferHighWaterMarkBytes"));
    bad.put(
        "transport:\n  reconnectBackoffMin: 3s\n",
        List.of("transport.reconnectBackoffMin", "transport.reconnectBackoffMax"));
    bad.put(
        "lsm:\n  maxValueSizeBytes: 17MiB\n",
        List.of("transport.maxFrameBytes", "lsm.maxValueSizeBytes", "lsm.maxKeySizeBytes"));
    bad.put(
        "transport:\n  maxFrameBytes: 4MiB\n",
        List.of("transport.maxFrameBytes", "lsm.maxValueSizeBytes"));
    for (Map.Entry<String, List<String>> e : bad.entrySet()) {
      ConfigException error =
          assertThrows(
              ConfigException.class,
              () -> ConfigLoader.parse(MINIMAL + e.getKey(), "t", Map.of()),
              e.getKey());
      for (String key : e.getValue()) {
        assertTrue(error.getMessage().contains("'" + key + "'"), error.getMessage() + " / " + key);
      }
    }
    // The frame limit follows the value limit: raising both together is accepted.
    FrsmConfig big =
        ConfigLoader.parse(
            MINIMAL + "lsm:\n  maxValueSizeBytes: 32MiB\ntransport:\n  maxFrameBytes: 33MiB\n",
            "t",
            Map.of());
    assertEquals(33 << 20, big.transport().maxFrameBytes());
  }

  @Test
  void leaderOnlyReads_canBeTurnedOff_andMustBeABoolean() {
    FrsmConfig c =
        ConfigLoader.parse(MINIMAL + "consensus:\n  leaderOnlyReads: false\n", "t", Map.of());
    assertFalse(c.get(ConsensusKeys.LEADER_ONLY_READS));
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
    assertEquals(5, c.get(NodeKeys.INITIAL_NODES));
    assertEquals(Duration.ofSeconds(3), c.get(ConsensusKeys.LEASE));
  }

  @Test
  void everyKey_isInTheShippedExample() throws Exception {
    String example = Files.readString(EXAMPLE);
    for (String key : ConfigLoader.keys()) {
      String leaf = key.substring(key.lastIndexOf('.') + 1); // under its section or group
      assertTrue(example.contains(leaf + ":"), "config/frsm.yaml lacks " + key);
    }
  }

  /**
   * docs/OPERATIONS.md "Configuration file" lists every key once, with the default and the unit its
   * declaration has: the tables are rows {@code | `key` | `default` | unit | meaning |}.
   */
  @Test
  void theDocumentedKeyTable_isTheDeclarations() throws Exception {
    String operations = Files.readString(Path.of("..", "docs", "OPERATIONS.md"));
    int start = operations.indexOf("\n## Configuration file\n");
    assertTrue(start >= 0, "docs/OPERATIONS.md has no section 'Configuration file'");
    int end = operations.indexOf("\n## ", start + 1);
    String section = operations.substring(start, end < 0 ? operations.length() : end);
    Map<String, List<String>> documented = new java.util.LinkedHashMap<>();
    for (String line : section.split("\n")) {
      if (!line.startsWith("| `")) {
        continue;
      }
      String[] cells = line.split("\\|");
      String key = unquoted(cells[1]);
      List<String> row = List.of(unquoted(cells[2]), cells[3].trim());
      assertEquals(null, documented.put(key, row), key + " is documented twice");
    }
    List<String> declared = ConfigLoader.keys();
    assertEquals(
        declared,
        List.copyOf(documented.keySet()),
        "the documented keys (in order) differ from the declared ones");
    for (ConfigKey<?> key : ConfigKeys.all()) {
      List<String> row = documented.get(key.name());
      assertEquals(key.documentedDefault(), row.get(0), key + ": the documented default");
      assertEquals(key.unit(), row.get(1), key + ": the documented unit");
    }
  }

  private static String unquoted(String cell) {
    String s = cell.trim();
    return s.startsWith("`") && s.endsWith("`") ? s.substring(1, s.length() - 1) : s;
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
              ? bad
                  + "  id: 1\n  dataDirectory: /d\n"
                  + (bad.contains("peerAddress") ? "" : "  peerAddress: 127.0.0.1:7400\n")
                  + "  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\n"
              : MINIMAL + bad;
      ConfigException e =
          assertThrows(ConfigException.class, () -> ConfigLoader.parse(yaml, "t", Map.of()), bad);
      String key = bad.substring(bad.indexOf("\n  ") + 3, bad.indexOf(':', bad.indexOf("\n  ")));
      assertTrue(e.getMessage().contains(key), e.getMessage() + " should name " + key);
    }
  }

  @Test
  void emptyTextOrAnInvalidPath_isAnErrorNamingTheKey() {
    String zookeeper = "zookeeper:\n  connect: z:1\n";
    String node =
        "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\n";
    for (String[] bad :
        List.of(
            new String[] {node + "  advertisedHost: ''\n" + zookeeper, "node.advertisedHost"},
            new String[] {
              "node:\n  id: 1\n  dataDirectory: ''\n" + zookeeper, "node.dataDirectory"
            },
            new String[] {
              "node:\n  id: 1\n  dataDirectory: \"/d\\0x\"\n" + zookeeper, "node.dataDirectory"
            },
            new String[] {node + "zookeeper:\n  connect: ' '\n", "zookeeper.connect"},
            new String[] {node + zookeeper + "cluster:\n  id: ''\n", "cluster.id"})) {
      ConfigException e =
          assertThrows(
              ConfigException.class, () -> ConfigLoader.parse(bad[0], "t", Map.of()), bad[0]);
      assertTrue(e.getMessage().contains(bad[1]), e.getMessage() + " should name " + bad[1]);
    }
    ConfigException fromEnvironment =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(node + zookeeper, "t", Map.of("FRSM_NODE_ADVERTISED_HOST", "")));
    assertTrue(fromEnvironment.getMessage().contains("node.advertisedHost"));
  }

  @Test
  void missingRequiredKey_isAnError() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\n",
                    "t",
                    Map.of()));
    assertTrue(e.getMessage().contains("zookeeper.connect"), e.getMessage());
  }

  /** No silent 0.0.0.0: a node listens only where its config says, so each address is required. */
  @Test
  void missingListenAddress_isAnError_namingTheKey() {
    String zookeeper = "zookeeper:\n  connect: z:1\n" + INSECURE;
    for (String[] c :
        List.of(
            new String[] {"  clientAddress: 127.0.0.1:7500\n", "node.peerAddress"},
            new String[] {"  peerAddress: 127.0.0.1:7400\n", "node.clientAddress"})) {
      ConfigException e =
          assertThrows(
              ConfigException.class,
              () ->
                  ConfigLoader.parse(
                      "node:\n  id: 1\n  dataDirectory: /d\n" + c[0] + zookeeper, "t", Map.of()));
      assertTrue(
          e.getMessage().contains(c[1] + "' ") && e.getMessage().contains("required"),
          e.getMessage());
    }
    FrsmConfig everyInterface =
        ConfigLoader.parse(
            "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 0.0.0.0:7400\n"
                + "  clientAddress: 0.0.0.0:7500\n"
                + zookeeper,
            "t",
            Map.of());
    assertEquals("0.0.0.0", everyInterface.peerAddress().getHostString());
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
    assertEquals(Duration.ofMillis(750), c.get(ConsensusKeys.BOUNDED_DELAY));
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
