package io.frsm.server.config;

import io.frsm.client.transport.TransportConfig;
import io.frsm.lsm.LsmConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * A node's whole configuration: a value for every {@link ConfigKey} ({@link ConfigKeys#all()}),
 * checked together, and the storage engine's and the transport's configs they make up. The one
 * model behind all three ways to configure a node: {@link ConfigLoader} fills a {@link Builder}
 * from {@code frsm.yaml} and {@code FRSM_*} variables, {@code FrsmNodeBuilder} fills one through
 * its options, and {@link Builder#build()} runs the same checks ({@link ConfigRules}) for both.
 *
 * <p>Immutable; every value was checked against its key and the rules between keys.
 */
public final class FrsmConfig {
  private final Map<ConfigKey<?>, Object> values;
  private final LsmConfig lsm;
  private final TransportConfig transport;

  private FrsmConfig(Map<ConfigKey<?>, Object> values, LsmConfig lsm, TransportConfig transport) {
    this.values = Collections.unmodifiableMap(values);
    this.lsm = lsm;
    this.transport = transport;
  }

  /** A builder holding every key's default (required keys unset). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this config's values, to change some of them. */
  public Builder toBuilder() {
    Builder b = new Builder();
    for (ConfigKey<?> key : ConfigKeys.all()) {
      copy(key, b);
    }
    return b;
  }

  private <T> void copy(ConfigKey<T> key, Builder to) {
    to.set(key, get(key));
  }

  /**
   * The value of {@code key}: never null, except for a key whose default the node derives ({@link
   * NodeKeys#ADVERTISED_HOST}).
   */
  @SuppressWarnings("unchecked")
  public <T> T get(ConfigKey<T> key) {
    return (T) values.get(key);
  }

  /** The storage engine's config: the {@code lsm.*} keys on the node's directories. */
  public LsmConfig lsm() {
    return lsm;
  }

  /** The transport's config: the {@code transport.*} keys (but the thread count) and cluster id. */
  public TransportConfig transport() {
    return transport;
  }

  // What `frsm server` reads; each is get() of one key.

  public int nodeId() {
    return get(NodeKeys.ID);
  }

  public String clusterId() {
    return get(NodeKeys.CLUSTER_ID);
  }

  /** As written: unresolved. */
  public InetSocketAddress peerAddress() {
    return get(NodeKeys.PEER_ADDRESS);
  }

  /** As written: unresolved. */
  public InetSocketAddress clientAddress() {
    return get(NodeKeys.CLIENT_ADDRESS);
  }

  public int metricsPort() {
    return get(MetricsKeys.PORT);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("FrsmConfig{");
    for (ConfigKey<?> key : ConfigKeys.all()) {
      sb.append(key.name()).append('=').append(printed(key)).append(", ");
    }
    sb.setLength(sb.length() - 2);
    return sb.append('}').toString();
  }

  private <T> String printed(ConfigKey<T> key) {
    return key.print(get(key));
  }

  /**
   * Collects values, then checks them all at once: a value may be out of range until {@link
   * #build()}, and each setter replaces its key's value. Not thread-safe.
   *
   * <p>The storage engine's keys are kept as an ordered list of adjustments to {@link
   * LsmConfig.Builder} (a key set, or an embedder's {@link #adjustLsm}), because the engine checks
   * its values only when it builds: later adjustments override earlier ones exactly as their order
   * says. The transport's are plain values, which {@link #adjustTransport} reads back at once.
   */
  public static final class Builder {
    private final Map<ConfigKey<?>, Object> values = new HashMap<>();
    private final List<Consumer<LsmConfig.Builder>> lsmAdjustments = new ArrayList<>();

    private Builder() {
      for (ConfigKey<?> key : ConfigKeys.all()) {
        if (!key.isLsm()) {
          values.put(key, key.defaultValue());
        }
      }
    }

    /** Sets {@code key}; null unsets it (a required key is then missing again). */
    public <T> Builder set(ConfigKey<T> key, T value) {
      Objects.requireNonNull(key, "key");
      if (key.isLsm()) {
        Objects.requireNonNull(value, key.name());
        lsmAdjustments.add(b -> key.applyTo(b, value));
      } else {
        values.put(key, value);
      }
      return this;
    }

    /** Adjusts the storage engine's settings after those set before (directories excluded). */
    public Builder adjustLsm(Consumer<LsmConfig.Builder> adjustment) {
      lsmAdjustments.add(Objects.requireNonNull(adjustment, "adjustment"));
      return this;
    }

    /**
     * Adjusts the transport's settings: {@code adjustment} sees their current values on a {@link
     * TransportConfig.Builder} and whatever it sets there becomes this builder's values.
     */
    public Builder adjustTransport(Consumer<TransportConfig.Builder> adjustment) {
      Objects.requireNonNull(adjustment, "adjustment");
      TransportConfig.Builder b = TransportConfig.builder("unused: only the settings are read");
      for (ConfigKey<?> key : TransportKeys.ALL) {
        if (key.isTransport()) {
          applyCurrent(key, b);
        }
      }
      adjustment.accept(b);
      for (ConfigKey<?> key : TransportKeys.ALL) {
        if (key.isTransport()) {
          values.put(key, key.readFrom(b));
        }
      }
      return this;
    }

    private <T> void applyCurrent(ConfigKey<T> key, TransportConfig.Builder b) {
      @SuppressWarnings("unchecked")
      T value = (T) values.get(key);
      key.applyTo(b, Objects.requireNonNull(value, key.name()));
    }

    /**
     * The checked configuration.
     *
     * @throws ConfigException naming the key (and its builder option) whose value is missing or out
     *     of range, or the keys that contradict each other
     */
    public FrsmConfig build() {
      Map<ConfigKey<?>, Object> checked = new HashMap<>(values);
      ConfigRules.checkEachKey(checked);
      LsmConfig lsm = lsm(checked);
      for (ConfigKey<?> key : LsmKeys.ALL) {
        checked.put(key, key.readFrom(lsm));
      }
      checked.put(NodeKeys.COMMIT_LOG_DIRECTORIES, lsm.commitLogDirectories());
      ConfigRules.checkBetweenKeys(checked);
      return new FrsmConfig(checked, lsm, transport(checked));
    }

    private LsmConfig lsm(Map<ConfigKey<?>, Object> checked) {
      try {
        LsmConfig.Builder b = LsmConfig.builder((Path) checked.get(NodeKeys.DATA_DIRECTORY));
        @SuppressWarnings("unchecked")
        List<Path> logs = (List<Path>) checked.get(NodeKeys.COMMIT_LOG_DIRECTORIES);
        if (logs != null) {
          b.commitLogDirectories(logs);
        }
        for (Consumer<LsmConfig.Builder> adjustment : lsmAdjustments) {
          adjustment.accept(b); // some setters check their value at once
        }
        return b.build();
      } catch (IllegalArgumentException e) {
        // LsmConfig names its own setting (e.g. "numberOfCompactionThreads"); give it its section.
        throw new ConfigException(
            "config section 'lsm' (FrsmNodeBuilder.lsm): " + e.getMessage(), e);
      }
    }

    /** Cannot fail: every value it takes was checked against stricter bounds before. */
    private static TransportConfig transport(Map<ConfigKey<?>, Object> checked) {
      TransportConfig.Builder b =
          TransportConfig.builder((String) checked.get(NodeKeys.CLUSTER_ID));
      for (ConfigKey<?> key : TransportKeys.ALL) {
        if (key.isTransport()) {
          apply(key, checked.get(key), b);
        }
      }
      return b.build();
    }

    @SuppressWarnings("unchecked")
    private static <T> void apply(ConfigKey<T> key, Object value, TransportConfig.Builder b) {
      key.applyTo(b, (T) value);
    }
  }
}
