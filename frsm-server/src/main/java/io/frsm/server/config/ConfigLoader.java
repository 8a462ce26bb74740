package io.frsm.server.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads {@link FrsmConfig} from YAML, then applies {@code FRSM_*} environment variables on top (for
 * containers: {@code lsm.memtableFlushSizeBytes} is {@code FRSM_LSM_MEMTABLE_FLUSH_SIZE_BYTES}).
 * Strict: an unknown key, a value of the wrong type or unit, a missing required key, a value out of
 * its range or two keys that contradict each other ({@link ConfigRules}) is a {@link
 * ConfigException} naming the key — a typo never silently falls back to a default. The keys are
 * {@link ConfigKeys#all()}.
 */
public final class ConfigLoader {
  /** Read by the launcher script, not config keys. */
  static final Set<String> LAUNCHER_VARIABLES =
      Set.of("FRSM_CONFIG", "FRSM_JAVA_OPTS", "FRSM_HOME");

  private ConfigLoader() {}

  /** Every key the file may hold, in documentation order. */
  public static List<String> keys() {
    return ConfigKeys.all().stream().map(ConfigKey::name).toList();
  }

  /** The environment variable that overrides {@code key}: {@code FRSM_<SECTION>_<KEY>}. */
  public static String environmentName(String key) {
    ConfigKey<?> k = ConfigKeys.named(key);
    if (k == null) {
      throw new IllegalArgumentException("not a config key: " + key);
    }
    return k.environmentVariable();
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
    FrsmConfig.Builder config = FrsmConfig.builder();
    for (Map.Entry<String, Object> e : flat.entrySet()) {
      ConfigKey<?> key = ConfigKeys.named(e.getKey());
      if (key == null) {
        throw new ConfigException(
            "unknown config key '" + e.getKey() + "' in " + source + "; known keys: " + keys());
      }
      if (e.getValue() != null) {
        setParsed(config, key, e.getValue());
      }
    }
    for (ConfigKey<?> key : ConfigKeys.all()) {
      String value = environment.get(key.environmentVariable());
      if (value != null) {
        setParsed(config, key, value);
      }
    }
    for (String name : environment.keySet()) {
      if (name.startsWith("FRSM_")
          && !LAUNCHER_VARIABLES.contains(name)
          && ConfigKeys.all().stream().noneMatch(k -> k.environmentVariable().equals(name))) {
        throw new ConfigException("unknown environment variable " + name + " (not a config key)");
      }
    }
    return config.build();
  }

  private static <T> void setParsed(FrsmConfig.Builder config, ConfigKey<T> key, Object raw) {
    config.set(key, key.parse(raw));
  }

  private static void flatten(
      String prefix, Map<?, ?> map, Map<String, Object> out, String source) {
    for (Map.Entry<?, ?> e : map.entrySet()) {
      String key = prefix + e.getKey();
      if (e.getValue() instanceof Map<?, ?> nested) {
        // Sections, and groups within a section (zookeeper.tls); unknown names are refused below.
        if (prefix.chars().filter(c -> c == '.').count() >= 2) {
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
}
