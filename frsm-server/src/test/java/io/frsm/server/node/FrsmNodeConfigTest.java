package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.TransportConfig;
import io.frsm.server.config.ConfigException;
import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.ConfigKeys;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.MetricsKeys;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.ServerKeys;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link FrsmNodeBuilder#config}: every field of a configuration file reaches the node's settings,
 * the file's defaults are the builder's, and the builder enforces the file's rules.
 */
class FrsmNodeConfigTest {
  private static final String MINIMAL =
      "node:\n  id: 3\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: zk:2181\n"
          + "security:\n  insecure: true\n";

  /** Every key of the file, each set to a value other than its default. */
  private static final String EVERY_KEY =
      """
      cluster:
        id: configured
        initialNodes: 7
        join: true
      node:
        id: 4
        rack: rack-x
        dataDirectory: /frsm-test/data
        commitLogDirectories: [/frsm-test/log-a, /frsm-test/log-b]
        peerAddress: 127.0.0.1:7401
        clientAddress: 127.0.0.1:7501
        advertisedHost: frsm-4.example
        drainTimeout: 3s
        minFreeDiskBytes: 1GiB
        minFreeDiskFraction: 0.05
        diskSpaceCheckInterval: 5s
        membershipStepTimeout: 7m
        membershipStepRangesPerNode: 3
      zookeeper:
        connect: zk-a:2181,zk-b:2181
        sessionTimeout: 7s
        credentialFile: /frsm-test/zookeeper.credential
        readerCredentialFile: /frsm-test/zookeeper-reader.credential
        tls:
          trustStore: /frsm-test/tls/zookeeper-ca.jks
          trustStorePasswordFile: /frsm-test/tls/zookeeper-ca.password
          keyStore: /frsm-test/tls/zookeeper-client.p12
          keyStorePasswordFile: /frsm-test/tls/zookeeper-client.password
          hostnameVerification: false
      ring:
        vnodes: 32
        replicationFactor: 5
      consensus:
        boundedDelay: 6s
        clockSkewBound: 100ms
        hedge: 30ms
        roundTimeout: 300ms
        backoffMax: 70ms
        tickInterval: 3ms
        lease: 3s
        clockDriftPpm: 500
        stepDownAfter: 1500ms
        leaderOnlyReads: false
        handOff: true
        handOffMaxKeys: 64
        handOffDrainBudgetKeys: 128
        handOffMaxAbsence: 10m
        settleKeysPerSecond: 700
        handOffStopWait: 5s
        coreThreads: 3
        coreOnTransportLoop: true
        clockCacheBytes: 32MiB
      transport:
        threads: 3
        maxFrameBytes: 20MiB
        maxQueuedFramesPerConnection: 1000
        writeBufferLowWaterMarkBytes: 512KiB
        writeBufferHighWaterMarkBytes: 2MiB
        connectTimeout: 3s
        reconnectBackoffMin: 30ms
        reconnectBackoffMax: 3s
        maxInboundConnections: 100
        maxInboundConnectionsPerAddress: 50
        partialFrameTimeout: 5s
        partialFrameBudgetBytes: 64MiB
        nodeFrameBudgetBytes: 96MiB
        idleTimeout: 45s
      security:
        insecure: false
        caBundle: /frsm-test/tls/ca.pem
        certificateChain: /frsm-test/tls/node-4.pem
        privateKey: /frsm-test/tls/node-4-key.pem
        reloadCheckInterval: 3s
        handshakeTimeout: 4s
      metrics:
        port: 9500
        bindAddress: 0.0.0.0
        maxConnections: 8
        requestTimeout: 2s
        basicAuthUser: prometheus
        basicAuthPasswordFile: /frsm-test/metrics-password
      server:
        exitOnFatalError: false
      stream:
        maxBytesPerSecond: 50MiB
        snapshotTtl: 30m
        copyOnJoin: false
      lsm:
        flushLargestMemtablesHeapFraction: 0.8
        memtableLifetime: 20m
        minFlushLargestMemtableBytes: 10MiB
        memtableFlushSizeBytes: 32MiB
        maxCommitLogSizeOnDiskBytes: 2GiB
        commitLogRotationThresholdBytes: 32MiB
        commitLogGroupCommitWindow: 2ms
        commitLogPreallocateSegments: false
        numberOfCompactionThreads: 3
        compactionThroughputLimitBytesPerSecond: 32MiB
        minorCompactionMinTables: 5
        minorCompactionMaxTables: 20
        tombstoneGracePeriod: 48h
        tombstoneCompactionInterval: 2h
        maxKeySizeBytes: 32KiB
        maxValueSizeBytes: 2MiB
        maxFrozenMemtables: 6
        sstableBlockSizeBytes: 8KiB
        bloomBitsPerKey: 12
        blockCacheSizeBytes: 128MiB
        skipCorruptCommitLogTail: true
        scrubEnabled: false
        scrubThroughputBytesPerSecond: 1MiB
        scrubStartDelay: 30s
      """;

  /** Keys of the file that configure something other than the node: the endpoint, the process. */
  private static final Set<ConfigKey<?>> NOT_NODE_SETTINGS = notNodeSettings();

  private static Set<ConfigKey<?>> notNodeSettings() {
    Set<ConfigKey<?>> keys = new java.util.HashSet<>(MetricsKeys.all());
    keys.add(ServerKeys.EXIT_ON_FATAL_ERROR);
    return Set.copyOf(keys);
  }

  @Test
  void everyKeyOfTheFile_reachesTheNodesSettings() throws Exception {
    for (String key : ConfigLoader.keys()) {
      String leaf = key.substring(key.lastIndexOf('.') + 1); // under its section or group
      assertTrue(EVERY_KEY.contains(" " + leaf + ":"), "this test does not set " + key);
    }
    FrsmConfig config = load(EVERY_KEY);
    FrsmConfig defaults = load(MINIMAL);
    NodeSettings settings = FrsmNode.builder().config(config).build().settings();
    for (ConfigKey<?> key : ConfigKeys.all()) {
      if (NOT_NODE_SETTINGS.contains(key)) {
        continue;
      }
      Object configured = comparable(config.get(key));
      assertNotEquals(
          comparable(defaults.get(key)),
          configured,
          key + ": the test must set a value unlike the default");
      assertEquals(
          configured, comparable(inSettings(key, settings)), key + " did not reach the node");
    }
    assertEquals(describe(config.lsm()), describe(settings.lsmConfig()));
    assertEquals(config.transport(), settings.transportConfig());
    assertTrue(settings.modes().handOff(), "consensus.handOff reaches the core's modes");
    assertEquals(64, settings.modes().handOffMaxKeys(), "consensus.handOffMaxKeys too");
    assertEquals(
        new io.frsm.server.zk.HandOffLimits(
            64, 128, java.time.Duration.ofMinutes(10), java.time.Duration.ofSeconds(5)),
        settings.handOffLimits(),
        "the hand-off limits reach the agent");
  }

  /** consensus.handOffStopWait unset: two leases, whatever the lease. */
  @Test
  void handOffStopWait_unset_isTwoLeases() throws Exception {
    assertEquals(
        java.time.Duration.ofSeconds(3), // the default lease is 1.5 s
        FrsmNode.builder().config(load(MINIMAL)).build().settings().handOffLimits().stopWait());
    assertEquals(
        java.time.Duration.ofSeconds(6),
        FrsmNode.builder()
            .config(load(MINIMAL + "consensus:\n  lease: 3s\n"))
            .build()
            .settings()
            .handOffLimits()
            .stopWait());
  }

  @Test
  void theFilesDefaults_areTheBuildersDefaults() throws Exception {
    FrsmConfig config = load(MINIMAL);
    NodeSettings fromFile = FrsmNode.builder().config(config).build().settings();
    NodeSettings fromBuilder =
        FrsmNode.builder()
            .nodeId(3)
            .clusterId("frsm")
            .dataDirectory(Path.of("/d"))
            .zookeeper("zk:2181")
            .peerAddress(new InetSocketAddress("127.0.0.1", 7400))
            .clientAddress(new InetSocketAddress("127.0.0.1", 7500))
            .insecure(true)
            .build()
            .settings();
    for (ConfigKey<?> key : ConfigKeys.all()) {
      if (key.name().startsWith("lsm.")) {
        continue; // compared as the engine's config below
      }
      assertEquals(comparable(fromBuilder.get(key)), comparable(fromFile.get(key)), key.toString());
    }
    assertEquals(describe(fromBuilder.lsmConfig()), describe(fromFile.lsmConfig()));
    assertEquals(fromBuilder.transportConfig(), fromFile.transportConfig());
    assertEquals(fromBuilder.modes(), fromFile.modes());
  }

  @Test
  void theBuilder_departsFromTheFilesDefaults_inTheClusterIdAndTheAddressesOnly() {
    ConfigException noCluster =
        assertThrows(
            ConfigException.class,
            () ->
                FrsmNode.builder().nodeId(1).dataDirectory(Path.of("/d")).zookeeper("z:1").build());
    assertTrue(noCluster.getMessage().contains("'cluster.id'"), noCluster.getMessage());
    assertTrue(noCluster.getMessage().contains("clusterId"), noCluster.getMessage());
    NodeSettings s = minimal().build().settings();
    assertEquals(new InetSocketAddress("127.0.0.1", 0), s.peerAddress());
    assertEquals(new InetSocketAddress("127.0.0.1", 0), s.clientAddress());
  }

  @Test
  void set_isTheOptionOfTheKey() {
    NodeSettings byKey =
        minimal()
            .set(ConsensusKeys.CLOCK_DRIFT_PPM, 500)
            .set(ConsensusKeys.HEDGE, Duration.ofMillis(30))
            .build()
            .settings();
    NodeSettings byOption =
        minimal()
            .clockDriftPpm(500)
            .roundTimings(Duration.ofMillis(30), Duration.ofMillis(200), Duration.ofMillis(50))
            .build()
            .settings();
    assertEquals(
        byOption.get(ConsensusKeys.CLOCK_DRIFT_PPM), byKey.get(ConsensusKeys.CLOCK_DRIFT_PPM));
    assertEquals(byOption.get(ConsensusKeys.HEDGE), byKey.get(ConsensusKeys.HEDGE));
  }

  @Test
  void replicationFactor_isThreeByDefault_andASetting() {
    assertEquals(3, minimal().build().settings().get(RingKeys.REPLICATION_FACTOR));
    assertEquals(3, load(MINIMAL).get(RingKeys.REPLICATION_FACTOR));
    assertEquals(
        5,
        minimal()
            .replicationFactor(5)
            .initialNodes(5)
            .build()
            .settings()
            .get(RingKeys.REPLICATION_FACTOR));
  }

  @Test
  void settingsAfterTheConfig_overrideIt_andLsmAndTransportAdjustmentsAddUp() {
    FrsmConfig config = load(EVERY_KEY);
    NodeSettings s =
        FrsmNode.builder()
            .config(config)
            .replicationFactor(7)
            .lsm(b -> b.bloomBitsPerKey(14))
            .transport(b -> b.connectTimeout(Duration.ofSeconds(4)))
            .build()
            .settings();
    assertEquals(7, s.get(RingKeys.REPLICATION_FACTOR));
    assertEquals(14, s.lsmConfig().bloomBitsPerKey());
    assertEquals(config.lsm().memtableLifetime(), s.lsmConfig().memtableLifetime());
    assertEquals(Duration.ofSeconds(4), s.transportConfig().connectTimeout());
    assertEquals(config.transport().maxFrameBytes(), s.transportConfig().maxFrameBytes(), "kept");
  }

  @Test
  void transportAdjustments_areCheckedTogether_atBuild() {
    // Raising both water marks one adjustment at a time passes through low > high: not an error.
    TransportConfig t =
        minimal()
            .transport(b -> b.writeBufferLowWaterMarkBytes(8 << 20))
            .transport(b -> b.writeBufferHighWaterMarkBytes(16 << 20))
            .build()
            .settings()
            .transportConfig();
    assertEquals(8 << 20, t.writeBufferLowWaterMarkBytes());
    assertEquals(16 << 20, t.writeBufferHighWaterMarkBytes());
  }

  @Test
  void theBuilder_refusesWhatTheFileRefuses_namingTheOption() {
    Map<String, Function<FrsmNodeBuilder, FrsmNodeBuilder>> bad = new TreeMap<>();
    bad.put("replicationFactor", b -> b.replicationFactor(0));
    bad.put("replicationFactor ", b -> b.replicationFactor(RingKeys.MAX_REPLICATION_FACTOR + 1));
    bad.put("initialNodes", b -> b.replicationFactor(5).initialNodes(4));
    bad.put("vnodes", b -> b.vnodes(4097));
    bad.put(
        "hedge",
        b -> b.roundTimings(Duration.ofMillis(200), Duration.ofMillis(200), Duration.ofMillis(50)));
    bad.put("tickInterval", b -> b.tickInterval(Duration.ofMillis(30)));
    bad.put("boundedDelay", b -> b.boundedDelay(Duration.ofHours(2)));
    bad.put("drainTimeout", b -> b.drainTimeout(Duration.ofMillis(-1)));
    bad.put("transportThreads", b -> b.transportThreads(-1));
    bad.put("coreThreads", b -> b.coreThreads(65));
    bad.put("coreThreads ", b -> b.coreThreads(-1));
    bad.put(
        "writeBufferLowWaterMarkBytes",
        b -> b.transport(t -> t.writeBufferLowWaterMarkBytes(9).writeBufferHighWaterMarkBytes(8)));
    bad.put("maxFrameBytes", b -> b.lsm(l -> l.maxValueSizeBytes(17 * 1024 * 1024)));
    for (Map.Entry<String, Function<FrsmNodeBuilder, FrsmNodeBuilder>> e : bad.entrySet()) {
      IllegalArgumentException error =
          assertThrows(
              IllegalArgumentException.class,
              () -> e.getValue().apply(minimal()).build(),
              e.getKey());
      assertTrue(
          error.getMessage().contains(e.getKey().trim()),
          error.getMessage() + " should name " + e.getKey());
    }
    // The boundaries themselves are accepted.
    minimal()
        .replicationFactor(1)
        .initialNodes(1)
        .roundTimings(Duration.ofMillis(20), Duration.ofMillis(21), Duration.ofMillis(1))
        .tickInterval(Duration.ofMillis(20))
        .lsm(l -> l.maxValueSizeBytes(16 * 1024 * 1024))
        .build();
  }

  /** The options every builder needs, nothing else (also for SettingBoundsTest). */
  static FrsmNodeBuilder minimal() {
    return FrsmNode.builder()
        .insecure(true)
        .nodeId(1)
        .clusterId("c")
        .dataDirectory(Path.of("/d"))
        .zookeeper("z:1");
  }

  private static FrsmConfig load(String yaml) {
    return ConfigLoader.load(new StringReader(yaml), "test", Map.of());
  }

  /** A value as the settings hold it: addresses by host and port (the node resolves them). */
  private static Object comparable(Object value) {
    if (value instanceof InetSocketAddress a) {
      return hostPort(a);
    }
    return value;
  }

  /** How the node's settings hold {@code key}'s value. */
  private static Object inSettings(ConfigKey<?> key, NodeSettings settings) {
    String name = key.name();
    String leaf = name.substring(name.indexOf('.') + 1);
    if (name.startsWith("lsm.")) {
      return describe(settings.lsmConfig()).get(leaf);
    }
    if (name.startsWith("transport.") && !name.equals("transport.threads")) {
      return describe(settings.transportConfig()).get(leaf); // what the transport runs with
    }
    return comparable(settings.get(key));
  }

  private static String hostPort(InetSocketAddress a) {
    return a.getHostString() + ":" + a.getPort();
  }

  /** Every public getter of a settings object and its value. */
  private static Map<String, Object> describe(Object settings) {
    Map<String, Object> out = new TreeMap<>();
    for (Method m : settings.getClass().getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers())
          && !Modifier.isStatic(m.getModifiers())
          && m.getParameterCount() == 0
          && !Set.of("toString", "hashCode").contains(m.getName())) {
        try {
          out.put(m.getName(), m.invoke(settings));
        } catch (ReflectiveOperationException e) {
          throw new AssertionError(e);
        }
      }
    }
    assertTrue(out.size() > 5, "no getters found on " + settings.getClass());
    return out;
  }
}
