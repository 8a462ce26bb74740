package io.frsm.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Every key of a node's configuration, in the order of the file and of docs/OPERATIONS.md
 * "Configuration file": the declarations of each section, gathered.
 */
public final class ConfigKeys {
  private ConfigKeys() {}

  private static final List<ConfigKey<?>> ALL = gather();

  private static final Map<String, ConfigKey<?>> BY_NAME =
      ALL.stream().collect(Collectors.toUnmodifiableMap(ConfigKey::name, Function.identity()));

  private static List<ConfigKey<?>> gather() {
    List<ConfigKey<?>> all = new ArrayList<>();
    all.addAll(NodeKeys.ALL);
    all.addAll(ZooKeeperKeys.ALL);
    all.addAll(RingKeys.ALL);
    all.addAll(ConsensusKeys.ALL);
    all.addAll(TransportKeys.ALL);
    all.addAll(SecurityKeys.ALL);
    all.addAll(MetricsKeys.ALL);
    all.addAll(ServerKeys.ALL);
    all.addAll(StreamKeys.ALL);
    all.addAll(LsmKeys.ALL);
    return List.copyOf(all);
  }

  /** Every key, in documentation order. */
  public static List<ConfigKey<?>> all() {
    return ALL;
  }

  /** The key of that name, or null. */
  public static ConfigKey<?> named(String name) {
    return BY_NAME.get(name);
  }
}
