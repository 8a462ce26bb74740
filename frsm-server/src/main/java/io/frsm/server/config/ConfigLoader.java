package io.frsm.server.config;

import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.io.IOException;
import java.io.Reader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * Strict: an unknown key, a value of the wrong type or unit, a missing required key, a value out of
 * its range or two keys that contradict each other ({@link ConfigValidator}) is a {@link
 * ConfigException} naming the key — a typo never silently falls back to a default.
 */
public final class ConfigLoader {

  /** Every key: its setter on the draft. The table is the single source of the key names. */
  private static final Map<String, BiConsumer<ConfigDraft, Object>> KEYS = new LinkedHashMap<>();

  static {
    KEYS.put("cluster.id", (d, v) -> d.clusterId = Units.text("cluster.id", v));
    KEYS.put(
        "cluster.initialNodes",
        (d, v) -> d.initialNodes = Units.integer("cluster.initialNodes", v));
    KEYS.put("node.id", (d, v) -> d.nodeId = Units.integer("node.id", v));
    KEYS.put("node.rack", (d, v) -> d.rack = Units.text("node.rack", v));
    KEYS.put(
        "node.dataDirectory",
        (d, v) ->
            d.dataDirectory =
                Units.path("node.dataDirectory", Units.text("node.dataDirectory", v)));
    KEYS.put(
        "node.commitLogDirectories",
        (d, v) -> d.commitLogDirectories = paths("node.commitLogDirectories", v));
    KEYS.put("node.peerAddress", (d, v) -> d.peerAddress = address("node.peerAddress", v));
    KEYS.put("node.clientAddress", (d, v) -> d.clientAddress = address("node.clientAddress", v));
    KEYS.put(
        "node.advertisedHost", (d, v) -> d.advertisedHost = Units.text("node.advertisedHost", v));
    KEYS.put(
        "node.drainTimeout", (d, v) -> d.drainTimeout = Units.duration("node.drainTimeout", v));
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
    KEYS.put(
        "consensus.clockSkewBound",
        (d, v) -> d.clockSkewBound = Units.duration("consensus.clockSkewBound", v));
    KEYS.put("consensus.hedge", (d, v) -> d.hedge = Units.duration("consensus.hedge", v));
    KEYS.put(
        "consensus.roundTimeout",
        (d, v) -> d.roundTimeout = Units.duration("consensus.roundTimeout", v));
    KEYS.put(
        "consensus.backoffMax", (d, v) -> d.backoffMax = Units.duration("consensus.backoffMax", v));
    KEYS.put(
        "consensus.tickInterval",
        (d, v) -> d.tickInterval = Units.duration("consensus.tickInterval", v));
    KEYS.put("consensus.lease", (d, v) -> d.lease = Units.duration("consensus.lease", v));
    KEYS.put(
        "consensus.clockDriftPpm",
        (d, v) -> d.clockDriftPpm = Units.integer("consensus.clockDriftPpm", v));
    KEYS.put(
        "consensus.leaderOnlyReads",
        (d, v) -> d.leaderOnlyReads = Units.bool("consensus.leaderOnlyReads", v));
    KEYS.put(
        "consensus.coreThreads",
        (d, v) -> d.coreThreads = Units.integer("consensus.coreThreads", v));
    KEYS.put(
        "consensus.coreOnTransportLoop",
        (d, v) -> {
          CorePlacement p = CorePlacement.parse(String.valueOf(v)); // YAML's true reads as "true"
          if (p == null) {
            throw new ConfigException(
                "config key 'consensus.coreOnTransportLoop': '"
                    + v
                    + "' is not auto, true or false");
          }
          d.corePlacement = p;
        });
    KEYS.put(
        "consensus.clockCacheBytes",
        (d, v) -> d.clockCacheBytes = Units.bytes("consensus.clockCacheBytes", v));
    KEYS.put(
        "transport.threads", (d, v) -> d.transportThreads = Units.integer("transport.threads", v));
    KEYS.put(
        "transport.maxFrameBytes",
        (d, v) -> d.maxFrameBytes = Units.intBytes("transport.maxFrameBytes", v));
    KEYS.put(
        "transport.maxQueuedFramesPerConnection",
        (d, v) ->
            d.maxQueuedFramesPerConnection =
                Units.integer("transport.maxQueuedFramesPerConnection", v));
    KEYS.put(
        "transport.writeBufferLowWaterMarkBytes",
        (d, v) ->
            d.writeBufferLowWaterMarkBytes =
                Units.intBytes("transport.writeBufferLowWaterMarkBytes", v));
    KEYS.put(
        "transport.writeBufferHighWaterMarkBytes",
        (d, v) ->
            d.writeBufferHighWaterMarkBytes =
                Units.intBytes("transport.writeBufferHighWaterMarkBytes", v));
    KEYS.put(
        "transport.connectTimeout",
        (d, v) -> d.connectTimeout = Units.duration("transport.connectTimeout", v));
    KEYS.put(
        "transport.reconnectBackoffMin",
        (d, v) -> d.reconnectBackoffMin = Units.duration("transport.reconnectBackoffMin", v));
    KEYS.put(
        "transport.reconnectBackoffMax",
        (d, v) -> d.reconnectBackoffMax = Units.duration("transport.reconnectBackoffMax", v));
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
        "commitLogGroupCommitWindow",
        (b, v) -> {
          if (String.valueOf(v).trim().equalsIgnoreCase(GroupCommitWindow.AUTO_NAME)) {
            b.commitLogGroupCommitWindow(GroupCommitWindow.AUTO);
            return;
          }
          String key = "lsm.commitLogGroupCommitWindow";
          try {
            b.commitLogGroupCommitWindow(Units.duration(key, v));
          } catch (ConfigException e) {
            throw new ConfigException(
                "config key '" + key + "': '" + v + "' is neither auto nor a duration (e.g. 1ms)");
          }
        });
    lsm(
        "commitLogPreallocateSegments",
        (b, v) ->
            b.commitLogPreallocateSegments(Units.bool("lsm.commitLogPreallocateSegments", v)));
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
    lsm("maxKeySizeBytes", (b, v) -> b.maxKeySizeBytes(Units.intBytes("lsm.maxKeySizeBytes", v)));
    lsm(
        "maxValueSizeBytes",
        (b, v) -> b.maxValueSizeBytes(Units.intBytes("lsm.maxValueSizeBytes", v)));
    lsm(
        "maxFrozenMemtables",
        (b, v) -> b.maxFrozenMemtables(Units.integer("lsm.maxFrozenMemtables", v)));
    lsm(
        "sstableBlockSizeBytes",
        (b, v) -> b.sstableBlockSizeBytes(Units.intBytes("lsm.sstableBlockSizeBytes", v)));
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
      // A repeated section or key would silently drop the earlier one's values.
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      root = new Yaml(new SafeConstructor(options)).load(yaml);
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
    ConfigDraft draft = new ConfigDraft();
    for (Map.Entry<String, Object> e : flat.entrySet()) {
      BiConsumer<ConfigDraft, Object> setter = KEYS.get(e.getKey());
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
    for (Map.Entry<String, BiConsumer<ConfigDraft, Object>> k : KEYS.entrySet()) {
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
    return ConfigValidator.validate(draft, source);
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

  private static List<Path> paths(String key, Object value) {
    List<Path> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object o : list) {
        out.add(Units.path(key, Units.text(key, o)));
      }
    } else {
      for (String s : Units.text(key, value).split(",")) {
        if (!s.isBlank()) {
          out.add(Units.path(key, s.trim()));
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
