package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.ConfigKeys;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.RingKeys;
import io.frsm.server.config.TransportKeys;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The file and the builder accept exactly the values of each key's declared bounds: each bound's
 * edges pass both, one step beyond fails both, each failure naming the key (and, for the builder,
 * its option).
 */
class SettingBoundsTest {
  private static final String BASE =
      "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\n"
          + "security:\n  insecure: true\n";

  /**
   * Keys in rules between keys, whose edges the defaults of the others do not all allow: tried
   * below with the others set to fit.
   */
  private static final Set<ConfigKey<?>> IN_RULES =
      Set.of(
          NodeKeys.INITIAL_NODES,
          RingKeys.REPLICATION_FACTOR,
          ConsensusKeys.HEDGE,
          ConsensusKeys.ROUND_TIMEOUT,
          ConsensusKeys.TICK_INTERVAL,
          TransportKeys.MAX_FRAME_BYTES,
          TransportKeys.WRITE_BUFFER_LOW_WATER_MARK_BYTES,
          TransportKeys.WRITE_BUFFER_HIGH_WATER_MARK_BYTES,
          TransportKeys.RECONNECT_BACKOFF_MIN,
          TransportKeys.RECONNECT_BACKOFF_MAX,
          TransportKeys.PARTIAL_FRAME_BUDGET_BYTES,
          TransportKeys.NODE_FRAME_BUDGET_BYTES);

  private static FrsmNodeBuilder minimal() {
    return FrsmNodeConfigTest.minimal();
  }

  @Test
  void everyBoundedKey_acceptsItsEdges_andRefusesOneStepBeyond_inTheFileAndTheBuilder() {
    int tried = 0;
    for (ConfigKey<?> key : ConfigKeys.all()) {
      if (key.min() == null || IN_RULES.contains(key)) {
        continue;
      }
      tried++;
      for (Object edge : edges(key)) {
        assertDoesNotThrow(() -> file(key, edge), key + " = " + edge);
        assertDoesNotThrow(() -> builder(key, edge).build(), key + " = " + edge);
      }
      for (Object beyond : beyond(key)) {
        if (!(beyond instanceof Duration d && d.isNegative())) { // the file has no negative time
          ConfigException inFile =
              assertThrows(ConfigException.class, () -> file(key, beyond), key + " = " + beyond);
          assertTrue(inFile.getMessage().contains("'" + key.name() + "'"), inFile.getMessage());
        }
        ConfigException inBuilder =
            assertThrows(
                ConfigException.class, () -> builder(key, beyond).build(), key + " = " + beyond);
        assertTrue(inBuilder.getMessage().contains("must be"), inBuilder.getMessage());
        if (key.builderOption() != null) {
          assertTrue(inBuilder.getMessage().contains(key.builderOption()), inBuilder.getMessage());
        }
      }
    }
    assertTrue(tried >= 15, "bounded keys tried: " + tried);
  }

  /** The budget for half-received frames holds one largest frame at least, else none arrives. */
  @Test
  void thePartialFrameBudget_isAtLeastTheFrameLimit() {
    int frame = 20 * 1024 * 1024;
    assertDoesNotThrow(
        () ->
            minimal()
                .transport(t -> t.maxFrameBytes(frame).partialFrameBudgetBytes(frame))
                .build());
    ConfigException below =
        assertThrows(
            ConfigException.class,
            () ->
                minimal()
                    .transport(t -> t.maxFrameBytes(frame).partialFrameBudgetBytes(frame - 1))
                    .build());
    assertTrue(below.getMessage().contains("'transport.maxFrameBytes'"), below.getMessage());
    assertThrows(
        ConfigException.class,
        () -> load("transport:\n  maxFrameBytes: 20MiB\n  partialFrameBudgetBytes: 16MiB\n"));
    assertDoesNotThrow(
        () -> load("transport:\n  maxFrameBytes: 20MiB\n  partialFrameBudgetBytes: 20MiB\n"));
  }

  /** So does the node-wide one, which all the node's ports share. */
  @Test
  void theNodeFrameBudget_isAtLeastTheFrameLimit() {
    String fits = "transport:\n  maxFrameBytes: 20MiB\n  partialFrameBudgetBytes: 20MiB\n";
    assertDoesNotThrow(() -> load(fits + "  nodeFrameBudgetBytes: 20MiB\n"));
    ConfigException below =
        assertThrows(ConfigException.class, () -> load(fits + "  nodeFrameBudgetBytes: 16MiB\n"));
    assertTrue(below.getMessage().contains("nodeFrameBudgetBytes"), below.getMessage());
    assertTrue(below.getMessage().contains("'transport.maxFrameBytes'"), below.getMessage());
  }

  @Test
  void theReplicationFactor_isOneToNine_givenAsManyInitialNodes() {
    int max = RingKeys.MAX_REPLICATION_FACTOR;
    assertDoesNotThrow(() -> load("ring:\n  replicationFactor: 1\ncluster:\n  initialNodes: 1\n"));
    assertDoesNotThrow(() -> minimal().replicationFactor(1).initialNodes(1).build());
    assertDoesNotThrow(
        () -> load("ring:\n  replicationFactor: " + max + "\ncluster:\n  initialNodes: " + max));
    assertDoesNotThrow(() -> minimal().replicationFactor(max).initialNodes(max).build());
    assertThrows(ConfigException.class, () -> load("ring:\n  replicationFactor: 0\n"));
    assertThrows(ConfigException.class, () -> minimal().replicationFactor(0).build());
    assertThrows(
        ConfigException.class,
        () -> minimal().replicationFactor(max + 1).initialNodes(max + 1).build());
    assertThrows(
        ConfigException.class,
        () -> load("ring:\n  replicationFactor: 10\ncluster:\n  initialNodes: 10\n"));
  }

  @Test
  void timingBounds_areTheSameForTheFileAndTheBuilder() {
    // The tick: at least a millisecond in both (the builder once took a nanosecond).
    assertDoesNotThrow(() -> file("consensus", "tickInterval", "1ms"));
    assertDoesNotThrow(() -> minimal().tickInterval(Duration.ofMillis(1)).build());
    assertThrows(ConfigException.class, () -> file("consensus", "tickInterval", "0ms"));
    IllegalArgumentException subMs =
        assertThrows(
            IllegalArgumentException.class,
            () -> minimal().tickInterval(Duration.ofNanos(999_999)).build());
    assertTrue(subMs.getMessage().contains("tickInterval"), subMs.getMessage());

    // The lease: at least 4 ms (renewals every quarter of it), at most the timing bound.
    assertDoesNotThrow(() -> file("consensus", "lease", "4ms"));
    assertDoesNotThrow(() -> minimal().lease(Duration.ofMillis(4)).build());
    assertThrows(ConfigException.class, () -> file("consensus", "lease", "3ms"));
    assertThrows(
        IllegalArgumentException.class, () -> minimal().lease(Duration.ofMillis(3)).build());

    Duration max = ConsensusKeys.BOUNDED_DELAY.max();
    assertEquals(Duration.ofHours(1), max);
    assertDoesNotThrow(() -> file("consensus", "boundedDelay", "1h"));
    assertDoesNotThrow(() -> minimal().boundedDelay(max).build());
    assertThrows(ConfigException.class, () -> file("consensus", "boundedDelay", "61m"));
    assertThrows(
        IllegalArgumentException.class, () -> minimal().boundedDelay(max.plusMillis(1)).build());

    // The round timings' upper edges, with the rules between them kept.
    // (A round timeout of an hour leaves no room for step-down, which must come after it: off.)
    Duration hour = Duration.ofHours(1);
    assertDoesNotThrow(
        () ->
            minimal()
                .roundTimings(hour.minusMillis(1), hour, hour)
                .tickInterval(hour.minusMillis(1))
                .stepDownAfter(Duration.ZERO)
                .build());
    assertThrows(
        ConfigException.class,
        () ->
            minimal()
                .roundTimings(hour, hour.plusMillis(1), hour)
                .tickInterval(hour)
                .stepDownAfter(Duration.ZERO)
                .build());
  }

  @Test
  void stepDownAfter_isAboveTheRoundTimeout_orOff() {
    Duration timeout = Duration.ofMillis(200);
    assertDoesNotThrow(() -> minimal().stepDownAfter(timeout.plusMillis(1)).build());
    assertDoesNotThrow(() -> minimal().stepDownAfter(Duration.ZERO).build());
    ConfigException atTimeout =
        assertThrows(ConfigException.class, () -> minimal().stepDownAfter(timeout).build());
    assertTrue(atTimeout.getMessage().contains("consensus.stepDownAfter"), atTimeout.getMessage());
    assertThrows(ConfigException.class, () -> file("consensus", "stepDownAfter", "100ms"));
    assertDoesNotThrow(() -> file("consensus", "stepDownAfter", "0s"));
  }

  /** The bounds themselves (an open upper bound: the minimum only). */
  private static List<Object> edges(ConfigKey<?> key) {
    List<Object> out = new ArrayList<>(List.of(key.min()));
    if (key.max() != null) {
      out.add(key.max());
    }
    return out;
  }

  /** One step outside each bound, where the type has such a value. */
  private static List<Object> beyond(ConfigKey<?> key) {
    List<Object> out = new ArrayList<>();
    Object min = key.min();
    Object max = key.max();
    if (min instanceof Integer i) {
      out.add(i - 1);
      if (max != null && (Integer) max < Integer.MAX_VALUE) {
        out.add((Integer) max + 1);
      }
    } else if (min instanceof Long l) {
      out.add(l - 1);
      if (max != null && (Long) max < Long.MAX_VALUE) {
        out.add((Long) max + 1);
      }
    } else if (min instanceof Double d) {
      out.add(d - 0.001);
      if (max != null) {
        out.add((Double) max + 0.001);
      }
    } else if (min instanceof Duration d) {
      out.add(d.minusMillis(1));
      if (max != null) {
        out.add(((Duration) max).plusMillis(1));
      }
    } else {
      throw new AssertionError(key + ": bounds of an unexpected type " + min.getClass());
    }
    return out;
  }

  @SuppressWarnings("unchecked")
  private static <T> FrsmNodeBuilder builder(ConfigKey<T> key, Object value) {
    return minimal().set(key, (T) value);
  }

  private static void file(ConfigKey<?> key, Object value) {
    String name = key.name();
    String text = value instanceof Duration d ? d.toMillis() + "ms" : String.valueOf(value);
    file(name.substring(0, name.indexOf('.')), name.substring(name.indexOf('.') + 1), text);
  }

  private static void file(String section, String key, String value) {
    load(section + ":\n  " + key + ": " + value + "\n");
  }

  /** {@code sections} merged into BASE, which has the node and zookeeper sections. */
  private static void load(String sections) {
    String yaml;
    if (sections.startsWith("node:")) {
      yaml =
          sections
              + (sections.contains("\n  id:") ? "" : "  id: 1\n")
              + "  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\nsecurity:\n  insecure: true\n";
    } else if (sections.startsWith("zookeeper:")) {
      yaml =
          sections
              + "  connect: z:1\nnode:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nsecurity:\n  insecure: true\n";
    } else if (sections.startsWith("security:")) {
      yaml =
          sections
              + "  insecure: true\nnode:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\n";
    } else {
      yaml = BASE + sections;
    }
    ConfigLoader.load(new StringReader(yaml), "test", Map.of());
  }
}
