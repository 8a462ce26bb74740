package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.SettingBounds;
import java.io.StringReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The file and the builder accept exactly the values of {@link SettingBounds}: each bound's edges
 * pass both, one step beyond fails both, each failure naming the setting its entry point knows.
 */
class SettingBoundsTest {
  private static final String BASE =
      "node:\n  id: 1\n  dataDirectory: /d\nzookeeper:\n  connect: z:1\n";

  /** One setting: its YAML (section, key), its builder option, and the value at each edge. */
  private record Setting(
      String section, String key, Function<Long, FrsmNodeBuilder> builder, long min, long max) {}

  private static FrsmNodeBuilder minimal() {
    return FrsmNodeConfigTest.minimal();
  }

  private static List<Setting> wholeSettings() {
    return List.of(
        new Setting(
            "ring",
            "vnodes",
            v -> minimal().vnodes((int) v.longValue()),
            SettingBounds.VNODES.min(),
            SettingBounds.VNODES.max()),
        new Setting(
            "consensus",
            "coreThreads",
            v -> minimal().coreThreads((int) v.longValue()),
            SettingBounds.CORE_THREADS.min(),
            SettingBounds.CORE_THREADS.max()),
        new Setting(
            "transport",
            "threads",
            v -> minimal().transportThreads((int) v.longValue()),
            SettingBounds.TRANSPORT_THREADS.min(),
            SettingBounds.TRANSPORT_THREADS.max()),
        new Setting(
            "consensus",
            "clockDriftPpm",
            v -> minimal().clockDriftPpm((int) v.longValue()),
            SettingBounds.CLOCK_DRIFT_PPM.min(),
            SettingBounds.CLOCK_DRIFT_PPM.max()));
  }

  @Test
  void wholeNumberBounds_areTheSameForTheFileAndTheBuilder() {
    for (Setting s : wholeSettings()) {
      for (long ok : new long[] {s.min(), s.max()}) {
        assertDoesNotThrow(() -> file(s.section(), s.key(), Long.toString(ok)), s + " " + ok);
        assertDoesNotThrow(() -> s.builder().apply(ok).build(), s + " " + ok);
      }
      for (long bad : new long[] {s.min() - 1, s.max() + 1}) {
        ConfigException inFile =
            assertThrows(
                ConfigException.class,
                () -> file(s.section(), s.key(), Long.toString(bad)),
                s + " " + bad);
        assertTrue(
            inFile.getMessage().contains("'" + s.section() + "." + s.key() + "'"),
            inFile.getMessage());
        IllegalArgumentException inBuilder =
            assertThrows(
                IllegalArgumentException.class,
                () -> s.builder().apply(bad).build(),
                s + " " + bad);
        assertTrue(inBuilder.getMessage().contains("must be in"), inBuilder.getMessage());
      }
    }
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

    Duration max = SettingBounds.MAX_TIMING;
    assertDoesNotThrow(() -> file("consensus", "boundedDelay", "1h"));
    assertDoesNotThrow(() -> minimal().boundedDelay(max).build());
    assertThrows(ConfigException.class, () -> file("consensus", "boundedDelay", "61m"));
    assertThrows(
        IllegalArgumentException.class, () -> minimal().boundedDelay(max.plusMillis(1)).build());
  }

  private static void file(String section, String key, String value) {
    ConfigLoader.load(
        new StringReader(BASE + section + ":\n  " + key + ": " + value + "\n"), "test", Map.of());
  }
}
