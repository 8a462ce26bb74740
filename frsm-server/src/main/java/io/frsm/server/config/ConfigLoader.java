package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads {@link FrsmConfig} from YAML, then applies {@code FRSM_*} environment variables on top (for
 * containers: {@code lsm.memtableFlushSizeBytes} is {@code FRSM_LSM_MEMTABLE_FLUSH_SIZE_BYTES}).
 * Strict: an unknown key, a value of the wrong type or unit, or a missing required key is a {@link
 * ConfigException} naming the key — a typo never silently falls back to a default.
 */
public final class ConfigLoader {

  /** Every key: its setter on the draft. The table is the single source of the key names. */
  private static final Map<String, BiConsumer<Draft, Object>> KEYS = new LinkedHashMap<>();

  static {
    KEYS.put("cluster.id", (d, v) -> d.clusterId = Units.text("cluster.id", v));
    KEYS.put(
        "cluster.initialNodes",
        (d, v) -> d.initialNodes = Units.integer("cluster.initialNodes", v));
    KEYS.put("node.id", (d, v) -> d.nodeId = Units.integer("node.id", v));
    KEYS.put("node.rack", (d, v) -> d.rack = Units.text("node.rack", v));
    KEYS.put(
        "node.dataDirectory",
        (d, v) -> d.dataDirectory = Path.of(Units.text("node.dataDirectory", v)));
    KEYS.put(
        "node.commitLogDirectories",
        (d, v) -> d.commitLogDirectories = paths("node.commitLogDirectories", v));
    KEYS.put("node.peerAddress", (d, v) -> d.peerAddress = address("node.peerAddress", v));
    KEYS.put("node.clientAddress", (d, v) -> d.clientAddress = address("node.clientAddress", v));
    KEYS.put(
        "node.advertisedHost", (d, v) -> d.advertisedHost = Units.text("node.advertisedHost", v));
    KEYS.put(
        "zookeeper.connect", (d, v) -> d.zookeeperConnect = Units.text("zookeeper.connect", v));
    KEYS.put(
        "zookeeper.sessionTimeout",
        (d, v) -> d.zookeeperSessionTimeout = Units.duration("zookeeper.sessionTimeout", v));
    KEYS.put("ring.vnodes", (d, v) -> d.vnodes = Units.integer("ring.vnodes", v));
    KEYS.put(
        "ring.replicationFactor",
        (d, v) -> d.replicationFactor = Units.integer("ring.replicationFactor", v));
    KEYS.put(
        "consensus.boundedDelay",
        (d, v) -> d.boundedDelay = Units.duration("consensus.boundedDelay", v));
    KEYS.put("consensus.lease", (d, v) -> d.lease = Units.duration("consensus.lease", v));
    KEYS.put(
        "consensus.clockDriftPpm",
        (d, v) -> d.clockDriftPpm = Units.integer("consensus.clockDriftPpm", v));
    KEYS.put(
        "consensus.leaderOnlyReads",
        (d, v) -> d.leaderOnlyReads = Units.bool("consensus.leaderOnlyReads", v));
    KEYS.put("metrics.port", (d, v) -> d.metricsPort = Units.integer("metrics.port", v));
    lsm(
        "flushLargestMemtablesHeapFraction",
        (b, v) ->
            b.flushLargestMemtablesHeapFraction(
                Units.decimal("lsm.flushLargestMemtablesHeapFraction", v)));
    lsm(
        "memtableLifetime",
        (b, v) -> b.memtableLifetime(Units.duration("lsm.memtableLifetime", v)));
    lsm(
        "minFlushLargestMemtableBytes",
        (b, v) ->
            b.minFlushLargestMemtableBytes(Units.bytes("lsm.minFlushLargestMemtableBytes", v)));
    lsm(
        "memtableFlushSizeBytes",
        (b, v) -> b.memtableFlushSizeBytes(Units.bytes("lsm.memtableFlushSizeBytes", v)));
    lsm(
        "maxCommitLogSizeOnDiskBytes",
        (b, v) -> b.maxCommitLogSizeOnDiskBytes(Units.bytes("lsm.maxCommitLogSizeOnDiskBytes", v)));
    lsm(
        "commitLogRotationThresholdBytes",
        (b, v) ->
            b.commitLogRotationThresholdBytes(
                Units.bytes("lsm.commitLogRotationThresholdBytes", v)));
    lsm(
        "numberOfCompactionThreads",
        (b, v) -> b.numberOfCompactionThreads(Units.integer("lsm.numberOfCompactionThreads", v)));
    lsm(
        "compactionThroughputLimitBytesPerSecond",
        (b, v) ->
            b.compactionThroughputLimitBytesPerSecond(
                Units.bytes("lsm.compactionThroughputLimitBytesPerSecond", v)));
    lsm(
        "minorCompactionMinTables",
        (b, v) -> b.minorCompactionMinTables(Units.integer("lsm.minorCompactionMinTables", v)));
    lsm(
        "minorCompactionMaxTables",
        (b, v) -> b.minorCompactionMaxTables(Units.integer("lsm.minorCompactionMaxTables", v)));
    lsm(
        "tombstoneGracePeriod",
        (b, v) -> b.tombstoneGracePeriod(Units.duration("lsm.tombstoneGracePeriod", v)));
    lsm(
        "maxKeySizeBytes",
        (b, v) -> b.maxKeySizeBytes((int) Units.bytes("lsm.maxKeySizeBytes", v)));
    lsm(
        "maxValueSizeBytes",
        (b, v) -> b.maxValueSizeBytes((int) Units.bytes("lsm.maxValueSizeBytes", v)));
    lsm(
        "maxFrozenMemtables",
        (b, v) -> b.maxFrozenMemtables(Units.integer("lsm.maxFrozenMemtables", v)));
    lsm(
        "sstableBlockSizeBytes",
        (b, v) -> b.sstableBlockSizeBytes((int) Units.bytes("lsm.sstableBlockSizeBytes", v)));
    lsm("bloomBitsPerKey", (b, v) -> b.bloomBitsPerKey(Units.integer("lsm.bloomBitsPerKey", v)));
    lsm(
        "blockCacheSizeBytes",
        (b, v) -> b.blockCacheSizeBytes(Units.bytes("lsm.blockCacheSizeBytes", v)));
    lsm(
        "skipCorruptCommitLogTail",
        (b, v) -> b.skipCorruptCommitLogTail(Units.bool("lsm.skipCorruptCommitLogTail", v)));
  }

  private static void lsm(String name, BiConsumer<LsmConfig.Builder, Object> apply) {
    KEYS.put("lsm." + name, (d, v) -> d.lsm.add(b -> apply.accept(b, v)));
  }

  /** The draft the keys fill; defaults here are the documented ones. */
  private static final class Draft {
    String clusterId = "frsm";
    int initialNodes = 3;
    int nodeId = -1;
    String rack = "default";
    Path dataDirectory;
    List<Path> commitLogDirectories;
    InetSocketAddress peerAddress = new InetSocketAddress("0.0.0.0", 7400);
    InetSocketAddress clientAddress = new InetSocketAddress("0.0.0.0", 7500);
    String advertisedHost;
    String zookeeperConnect;
    Duration zookeeperSessionTimeout = Duration.ofSeconds(10);
    int vnodes = 16;
    int replicationFactor = 3;
    Duration boundedDelay = Duration.ofSeconds(5);
    Duration lease = Duration.ofSeconds(2);
    int clockDriftPpm = 1000;
    boolean leaderOnlyReads = true;
    int metricsPort = 9404;
    final List<java.util.function.Consumer<LsmConfig.Builder>> lsm = new ArrayList<>();
  }

  /** Read by the launcher script, not config keys. */
  static final java.util.Set<String> LAUNCHER_VARIABLES =
      java.util.Set.of("FRSM_CONFIG", "FRSM_JAVA_OPTS", "FRSM_HOME");

  private ConfigLoader() {}

  /** Every key the file may hold, in documentation order. */
  public static List<String> keys() {
    return List.copyOf(KEYS.keySet());
  }

  /** The environment variable that overrides {@code key}: {@code FRSM_<SECTION>_<KEY>}. */
  public static String environmentName(String key) {
    return "FRSM_"
        + key.replace('.', '_').replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT);
  }

  public static FrsmConfig load(Path file, Map<String, String> environment) {
    String yaml;
    try {
      yaml = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage(), e);
    }
    return parse(yaml, file.toString(), environment);
  }

  public static FrsmConfig load(Reader reader, String source, Map<String, String> environment) {
    StringBuilder sb = new StringBuilder();
    char[] buf = new char[4096];
    try {
      for (int n; (n = reader.read(buf)) >= 0; ) {
        sb.append(buf, 0, n);
      }
    } catch (IOException e) {
      throw new ConfigException("cannot read config " + source + ": " + e.getMessage(), e);
    }
    return parse(sb.toString(), source, environment);
  }

  static FrsmConfig parse(String yaml, String source, Map<String, String> environment) {
    Object root;
    try {
      root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    } catch (YAMLException e) {
      throw new ConfigException("config " + source + " is not valid YAML: " + e.getMessage(), e);
    }
    Map<String, Object> flat = new TreeMap<>();
    if (root != null) {
      if (!(root instanceof Map<?, ?> map)) {
        throw new ConfigException("config " + source + " must be a mapping of sections");
      }
      flatten("", map, flat, source);
    }
    Draft draft = new Draft();
    for (Map.Entry<String, Object> e : flat.entrySet()) {
      BiConsumer<Draft, Object> setter = KEYS.get(e.getKey());
      if (setter == null) {
        throw new ConfigException(
            "unknown config key '"
                + e.getKey()
                + "' in "
                + source
                + "; known keys: "
                + KEYS.keySet());
      }
      if (e.getValue() != null) {
        setter.accept(draft, e.getValue());
      }
    }
    for (Map.Entry<String, BiConsumer<Draft, Object>> k : KEYS.entrySet()) {
      String value = environment.get(environmentName(k.getKey()));
      if (value != null) {
        k.getValue().accept(draft, value);
      }
    }
    for (String name : environment.keySet()) {
      if (name.startsWith("FRSM_")
          && !LAUNCHER_VARIABLES.contains(name)
          && KEYS.keySet().stream().noneMatch(k -> environmentName(k).equals(name))) {
        throw new ConfigException("unknown environment variable " + name + " (not a config key)");
      }
    }
    return build(draft, source);
  }

  private static void flatten(
      String prefix, Map<?, ?> map, Map<String, Object> out, String source) {
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String key = prefix + e.getKey();
      if (e.getValue() instanceof Map<?, ?> nested) {
        if (!prefix.isEmpty()) {
          throw new ConfigException(
              "config key '" + key + "' in " + source + " is nested too deep");
        }
        flatten(key + ".", nested, out, source);
      } else if (prefix.isEmpty()) {
        throw new ConfigException(
            "config key '" + key + "' in " + source + " must be a section (cluster, node, ...)");
      } else {
        out.put(key, e.getValue());
      }
    }
  }

  private static FrsmConfig build(Draft d, String source) {
    if (d.nodeId < 0) {
      throw new ConfigException(
          "config key 'node.id' is required (in " + source + " or FRSM_NODE_ID)");
    }
    if (d.dataDirectory == null) {
      throw new ConfigException("config key 'node.dataDirectory' is required");
    }
    if (d.zookeeperConnect == null || d.zookeeperConnect.isBlank()) {
      throw new ConfigException("config key 'zookeeper.connect' is required");
    }
    if (d.initialNodes < 3 || d.initialNodes > 10_000) {
      throw new ConfigException(
          "config key 'cluster.initialNodes' must be in [3, 10000] (replication factor 3), was "
              + d.initialNodes);
    }
    if (d.vnodes < 1 || d.vnodes > 4096) {
      throw new ConfigException("config key 'ring.vnodes' must be in [1, 4096], was " + d.vnodes);
    }
    if (d.replicationFactor < 1 || d.replicationFactor > 9) {
      throw new ConfigException(
          "config key 'ring.replicationFactor' must be in [1, 9], was " + d.replicationFactor);
    }
    if (d.boundedDelay.isZero() || d.boundedDelay.isNegative()) {
      throw new ConfigException("config key 'consensus.boundedDelay' must be > 0");
    }
    if (d.lease.toMillis() < 4) {
      throw new ConfigException("config key 'consensus.lease' must be >= 4ms, was " + d.lease);
    }
    if (d.clockDriftPpm < 0 || d.clockDriftPpm >= 100_000) {
      throw new ConfigException("config key 'consensus.clockDriftPpm' must be in [0, 100000)");
    }
    if (d.metricsPort < 0 || d.metricsPort > 65535) {
      throw new ConfigException("config key 'metrics.port' must be in [0, 65535]");
    }
    LsmConfig.Builder lsm = LsmConfig.builder(d.dataDirectory);
    if (d.commitLogDirectories != null) {
      lsm.commitLogDirectories(d.commitLogDirectories);
    }
    for (var apply : d.lsm) {
      apply.accept(lsm);
    }
    LsmConfig lsmConfig;
    try {
      lsmConfig = lsm.build();
    } catch (IllegalArgumentException e) {
      // LsmConfig names its own key (e.g. "numberOfCompactionThreads"); give it its section.
      throw new ConfigException("config section 'lsm': " + e.getMessage(), e);
    }
    return new FrsmConfig(
        d.clusterId,
        d.initialNodes,
        d.nodeId,
        d.rack,
        d.peerAddress,
        d.clientAddress,
        d.advertisedHost,
        d.zookeeperConnect,
        d.zookeeperSessionTimeout,
        d.vnodes,
        d.replicationFactor,
        d.boundedDelay,
        d.lease,
        d.clockDriftPpm,
        d.leaderOnlyReads,
        d.metricsPort,
        lsmConfig);
  }

  private static List<Path> paths(String key, Object value) {
    List<Path> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object o : list) {
        out.add(Path.of(Units.text(key, o)));
      }
    } else {
      for (String s : Units.text(key, value).split(",")) {
        if (!s.isBlank()) {
          out.add(Path.of(s.trim()));
        }
      }
    }
    if (out.isEmpty()) {
      throw new ConfigException("config key '" + key + "' needs at least one directory");
    }
    return out;
  }

  private static InetSocketAddress address(String key, Object value) {
    String s = Units.text(key, value);
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new ConfigException("config key '" + key + "': '" + s + "' is not host:port");
    }
    int port = Units.integer(key, s.substring(colon + 1));
    if (port < 0 || port > 65535) {
      throw new ConfigException("config key '" + key + "': port " + port + " out of range");
    }
    return InetSocketAddress.createUnresolved(s.substring(0, colon), port);
  }
}
