package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.lsm.LsmConfig;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import io.frsm.transport.TransportConfig;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
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
      "node:\n  id: 3\n  dataDirectory: /d\nzookeeper:\n  connect: zk:2181\n";

  /** Every key of the file, each set to a value other than its default. */
  private static final String EVERY_KEY =
      """
      cluster:
        id: configured
        initialNodes: 7
      node:
        id: 4
        rack: rack-x
        dataDirectory: /frsm-test/data
        commitLogDirectories: [/frsm-test/log-a, /frsm-test/log-b]
        peerAddress: 127.0.0.1:7401
        clientAddress: 127.0.0.1:7501
        advertisedHost: frsm-4.example
        drainTimeout: 3s
      zookeeper:
        connect: zk-a:2181,zk-b:2181
        sessionTimeout: 7s
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
        leaderOnlyReads: false
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
      metrics:
        port: 9500
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
        maxKeySizeBytes: 32KiB
        maxValueSizeBytes: 2MiB
        maxFrozenMemtables: 6
        sstableBlockSizeBytes: 8KiB
        bloomBitsPerKey: 12
        blockCacheSizeBytes: 128MiB
        skipCorruptCommitLogTail: true
      """;

  /** Fields of the file that configure something other than the node. */
  private static final Set<String> NOT_NODE_SETTINGS = Set.of("metricsPort");

  /**
   * How a field of the file is found among the node's settings where the names or the types differ;
   * any other field must be a settings field of the same name.
   */
  private static final Map<String, Function<NodeSettings, Object>> RENAMED =
      Map.of(
          "peerAddress", s -> hostPort(s.peerAddress),
          "clientAddress", s -> hostPort(s.clientAddress),
          "zookeeperConnect", s -> s.zookeeper,
          "transport", s -> describe(s.transportConfig()),
          "lsm", s -> describe(s.lsmConfig()));

  @Test
  void everyFieldOfTheFile_reachesTheNodesSettings() throws Exception {
    for (String key : ConfigLoader.keys()) {
      String leaf = key.substring(key.indexOf('.') + 1);
      assertTrue(EVERY_KEY.contains(" " + leaf + ":"), "this test does not set " + key);
    }
    FrsmConfig config = load(EVERY_KEY);
    FrsmConfig defaults = load(MINIMAL);
    NodeSettings settings = FrsmNode.builder().config(config).build().settings();
    for (RecordComponent field : FrsmConfig.class.getRecordComponents()) {
      String name = field.getName();
      if (NOT_NODE_SETTINGS.contains(name)) {
        continue;
      }
      Object configured = comparable(name, field.getAccessor().invoke(config));
      Object byDefault = comparable(name, field.getAccessor().invoke(defaults));
      assertNotEquals(
          byDefault, configured, name + ": the test must set a value unlike the default");
      if (configured instanceof Map<?, ?> parts) {
        // Every part of the transport and storage settings too, not just one.
        Map<?, ?> defaultParts = (Map<?, ?>) byDefault;
        for (Object part : parts.keySet()) {
          if (!part.equals("clusterId")) {
            assertNotEquals(defaultParts.get(part), parts.get(part), name + "." + part);
          }
        }
      }
      assertEquals(configured, inSettings(name, settings), name + " did not reach the node");
    }
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
            .peerAddress(new InetSocketAddress("0.0.0.0", 7400))
            .clientAddress(new InetSocketAddress("0.0.0.0", 7500))
            .build()
            .settings();
    for (Field f : NodeSettings.class.getDeclaredFields()) {
      if (Modifier.isStatic(f.getModifiers())) {
        continue;
      }
      switch (f.getName()) {
        case "lsmTweaks", "commitLogDirectories" ->
            assertEquals(describe(fromBuilder.lsmConfig()), describe(fromFile.lsmConfig()));
        case "transportTweaks" ->
            assertEquals(
                describe(fromBuilder.transportConfig()), describe(fromFile.transportConfig()));
        case "meterRegistry" -> {
          // Each node gets its own.
        }
        default -> assertEquals(f.get(fromBuilder), f.get(fromFile), f.getName());
      }
    }
  }

  @Test
  void replicationFactor_isThreeByDefault_andASetting() {
    assertEquals(3, minimal().build().settings().replicationFactor);
    assertEquals(3, load(MINIMAL).replicationFactor());
    assertEquals(
        5, minimal().replicationFactor(5).initialNodes(5).build().settings().replicationFactor);
  }

  @Test
  void settingsAfterTheConfig_overrideIt_andLsmAndTransportAdjustmentsAddUp() {
    FrsmConfig config = load(EVERY_KEY);
    NodeSettings s =
        FrsmNode.builder()
            .config(config)
            .replicationFactor(7)
            .lsm(b -> b.bloomBitsPerKey(14))
            .transport(b -> b.connectTimeoutMillis(4_000))
            .build()
            .settings();
    assertEquals(7, s.replicationFactor);
    assertEquals(14, s.lsmConfig().bloomBitsPerKey());
    assertEquals(config.lsm().memtableLifetime(), s.lsmConfig().memtableLifetime());
    assertEquals(4_000, s.transportConfig().connectTimeoutMillis());
    assertEquals(config.transport().maxFrameBytes(), s.transportConfig().maxFrameBytes(), "kept");
  }

  @Test
  void theBuilder_refusesWhatTheFileRefuses_namingTheOption() {
    Map<String, Function<FrsmNodeBuilder, FrsmNodeBuilder>> bad = new TreeMap<>();
    bad.put("replicationFactor", b -> b.replicationFactor(0));
    bad.put("replicationFactor ", b -> b.replicationFactor(FrsmConfig.MAX_REPLICATION_FACTOR + 1));
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
        "writeBufferLowWaterMarkBytes", b -> b.transport(t -> t.writeBufferWaterMarksBytes(9, 8)));
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
        .nodeId(1)
        .clusterId("c")
        .dataDirectory(Path.of("/d"))
        .zookeeper("z:1");
  }

  private static FrsmConfig load(String yaml) {
    return ConfigLoader.load(new StringReader(yaml), "test", Map.of());
  }

  /** A field of the file as the settings hold it. */
  private static Object comparable(String name, Object value) {
    if (value instanceof InetSocketAddress a) {
      return hostPort(a);
    }
    if (value instanceof TransportConfig || value instanceof LsmConfig) {
      return describe(value);
    }
    return value;
  }

  private static Object inSettings(String name, NodeSettings settings) throws Exception {
    Function<NodeSettings, Object> renamed = RENAMED.get(name);
    if (renamed != null) {
      return renamed.apply(settings);
    }
    Field f;
    try {
      f = NodeSettings.class.getDeclaredField(name);
    } catch (NoSuchFieldException e) {
      fail(
          "FrsmConfig."
              + name
              + " has no counterpart in the node's settings: map it in FrsmNodeBuilder.config"
              + " and here");
      return null;
    }
    return f.get(settings);
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
