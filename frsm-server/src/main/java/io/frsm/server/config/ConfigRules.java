package io.frsm.server.config;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Where a node's configuration is checked, whichever way it was given (file, environment or
 * builder): each key's value against its declaration, then the rules between keys. Every failure is
 * a {@link ConfigException} naming the key and its builder option ({@link ConfigKey#describe}), or
 * every key of a rule that was broken. The storage engine checks its own keys when its config is
 * built ({@link FrsmConfig.Builder#build()}).
 */
final class ConfigRules {
  private ConfigRules() {}

  /** Every key but the storage engine's: present unless optional, within its bounds. */
  static void checkEachKey(Map<ConfigKey<?>, Object> values) {
    for (ConfigKey<?> key : ConfigKeys.all()) {
      if (!key.isLsm()) {
        checkOne(key, values.get(key));
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> void checkOne(ConfigKey<T> key, Object value) {
    if (value == null) {
      if (key.mayBeUnset()) {
        return; // the node derives it
      }
      throw new ConfigException(
          "config key " + key.describe() + " is required (or " + key.environmentVariable() + ")");
    }
    key.checkValue((T) value);
  }

  /** The rules between keys; each value was checked on its own before. */
  static void checkBetweenKeys(Map<ConfigKey<?>, Object> values) {
    int replicationFactor = (Integer) values.get(RingKeys.REPLICATION_FACTOR);
    int initialNodes = (Integer) values.get(NodeKeys.INITIAL_NODES);
    // Every range needs replicationFactor distinct nodes, so the cluster cannot form with fewer.
    if (initialNodes < replicationFactor) {
      throw new ConfigException(
          "config key "
              + NodeKeys.INITIAL_NODES.describe()
              + " must be in ["
              + quoted(RingKeys.REPLICATION_FACTOR)
              + " = "
              + replicationFactor
              + ", "
              + NodeKeys.MAX_INITIAL_NODES
              + "], was "
              + initialNodes);
    }
    // A hedge at or after the timeout never widens a round: the round fails instead.
    ordered(values, ConsensusKeys.HEDGE, ConsensusKeys.ROUND_TIMEOUT, false);
    // Timers fire on ticks: a longer tick would delay every hedge past its setting.
    ordered(values, ConsensusKeys.TICK_INTERVAL, ConsensusKeys.HEDGE, true);
    // One round that timed out is no evidence of a cut-off peer: only a longer silence is.
    if (!((Duration) values.get(ConsensusKeys.STEP_DOWN_AFTER)).isZero()) {
      ordered(values, ConsensusKeys.ROUND_TIMEOUT, ConsensusKeys.STEP_DOWN_AFTER, false);
    }
    int low = (Integer) values.get(TransportKeys.WRITE_BUFFER_LOW_WATER_MARK_BYTES);
    int high = (Integer) values.get(TransportKeys.WRITE_BUFFER_HIGH_WATER_MARK_BYTES);
    if (low > high) {
      throw new ConfigException(
          "config key "
              + TransportKeys.WRITE_BUFFER_LOW_WATER_MARK_BYTES.describe()
              + " ("
              + TransportKeys.WRITE_BUFFER_LOW_WATER_MARK_BYTES.print(low)
              + ") must not exceed "
              + quoted(TransportKeys.WRITE_BUFFER_HIGH_WATER_MARK_BYTES)
              + " ("
              + TransportKeys.WRITE_BUFFER_HIGH_WATER_MARK_BYTES.print(high)
              + ")");
    }
    ordered(values, TransportKeys.RECONNECT_BACKOFF_MIN, TransportKeys.RECONNECT_BACKOFF_MAX, true);
    checkFrameBudget(values);
    checkSecurity(values);
  }

  /**
   * TLS or an explicit {@code security.insecure}: never plaintext because a file was forgotten, and
   * never a file that is silently ignored.
   */
  private static void checkSecurity(Map<ConfigKey<?>, Object> values) {
    boolean insecure = (Boolean) values.get(SecurityKeys.INSECURE);
    java.util.List<String> set = new java.util.ArrayList<>();
    java.util.List<String> unset = new java.util.ArrayList<>();
    for (ConfigKey<java.nio.file.Path> key : SecurityKeys.FILES) {
      (values.get(key) != null ? set : unset).add(quoted(key));
    }
    if (insecure && !set.isEmpty()) {
      throw new ConfigException(
          "config key "
              + SecurityKeys.INSECURE.describe()
              + " is true but "
              + String.join(", ", set)
              + " set: choose TLS (unset security.insecure) or plaintext (unset the files)");
    }
    if (values.get(ZooKeeperKeys.READER_CREDENTIAL_FILE) != null
        && values.get(ZooKeeperKeys.CREDENTIAL_FILE) == null) {
      throw new ConfigException(
          "config key "
              + ZooKeeperKeys.READER_CREDENTIAL_FILE.describe()
              + " needs "
              + quoted(ZooKeeperKeys.CREDENTIAL_FILE)
              + ": without the nodes' own identity every znode is open to anyone anyway");
    }
    if (values.get(ZooKeeperKeys.TLS_TRUST_STORE) == null) {
      for (ConfigKey<?> key : ZooKeeperKeys.TLS_NEEDING_TRUST_STORE) {
        if (values.get(key) != null) {
          throw new ConfigException(
              "config key "
                  + key.describe()
                  + " needs "
                  + quoted(ZooKeeperKeys.TLS_TRUST_STORE)
                  + ": without it the node speaks plaintext to ZooKeeper");
        }
      }
    }
    if (values.get(ZooKeeperKeys.TLS_KEY_STORE_PASSWORD_FILE) != null
        && values.get(ZooKeeperKeys.TLS_KEY_STORE) == null) {
      throw new ConfigException(
          "config key "
              + ZooKeeperKeys.TLS_KEY_STORE_PASSWORD_FILE.describe()
              + " needs "
              + quoted(ZooKeeperKeys.TLS_KEY_STORE)
              + ": a password of no key store");
    }
    if (!insecure && values.get(ZooKeeperKeys.CREDENTIAL_FILE) == null) {
      throw new ConfigException(
          "config key "
              + ZooKeeperKeys.CREDENTIAL_FILE.describe()
              + " is required unless "
              + quoted(SecurityKeys.INSECURE)
              + " is true: without it every frsm znode is open to anyone who reaches ZooKeeper"
              + " (docs/OPERATIONS.md \"ZooKeeper authentication\")");
    }
    if (!insecure && !unset.isEmpty()) {
      throw new ConfigException(
          "TLS needs "
              + String.join(", ", unset)
              + " (FrsmNodeBuilder.tls); or, for a plaintext node anyone who reaches can read and"
              + " write, set "
              + SecurityKeys.INSECURE.describe()
              + " to true (docs/OPERATIONS.md \"Security\")");
    }
  }

  /**
   * A node whose frame limit cannot carry its largest key and value would accept writes it cannot
   * replicate ({@link FrameBudget}).
   */
  private static void checkFrameBudget(Map<ConfigKey<?>, Object> values) {
    int maxFrameBytes = (Integer) values.get(TransportKeys.MAX_FRAME_BYTES);
    // A budget below one frame would close every connection that sends a largest frame in parts.
    for (ConfigKey<Integer> key :
        List.of(TransportKeys.PARTIAL_FRAME_BUDGET_BYTES, TransportKeys.NODE_FRAME_BUDGET_BYTES)) {
      int budget = (Integer) values.get(key);
      if (budget < maxFrameBytes) {
        throw new ConfigException(
            "config key "
                + key.describe()
                + " ("
                + budget
                + ") must be at least "
                + quoted(TransportKeys.MAX_FRAME_BYTES)
                + " ("
                + maxFrameBytes
                + ")");
      }
    }
    long needed =
        FrameBudget.minimumFrameBytes(
            (Integer) values.get(LsmKeys.MAX_KEY_SIZE_BYTES),
            (Integer) values.get(LsmKeys.MAX_VALUE_SIZE_BYTES));
    if (maxFrameBytes < needed) {
      throw new ConfigException(
          "config key "
              + TransportKeys.MAX_FRAME_BYTES.describe()
              + " ("
              + maxFrameBytes
              + ") must be at least "
              + needed
              + " = "
              + quoted(LsmKeys.MAX_KEY_SIZE_BYTES)
              + " + max("
              + quoted(LsmKeys.MAX_VALUE_SIZE_BYTES)
              + ", 4MiB key listing) + 64KiB, or the largest writes could not be replicated");
    }
  }

  /**
   * Refuses {@code lower} unless it is below {@code upper} (or equal to it, if {@code mayEqual}),
   * naming both keys and their values.
   */
  private static void ordered(
      Map<ConfigKey<?>, Object> values,
      ConfigKey<Duration> lowerKey,
      ConfigKey<Duration> upperKey,
      boolean mayEqual) {
    Duration lower = (Duration) values.get(lowerKey);
    Duration upper = (Duration) values.get(upperKey);
    int order = lower.compareTo(upper);
    if (order > 0 || (order == 0 && !mayEqual)) {
      throw new ConfigException(
          "config key "
              + lowerKey.describe()
              + " ("
              + lowerKey.print(lower)
              + ") must "
              + (mayEqual ? "not exceed " : "be below ")
              + quoted(upperKey)
              + " ("
              + upperKey.print(upper)
              + ")");
    }
  }

  private static String quoted(ConfigKey<?> key) {
    return "'" + key.name() + "'";
  }
}
