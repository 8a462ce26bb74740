package io.frsm.server.config;

import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code stream} section: bulk copy of token ranges between nodes
 * (docs/formats/streaming.md).
 */
public final class StreamKeys {
  private StreamKeys() {}

  public static final ConfigKey<Long> MAX_BYTES_PER_SECOND =
      ConfigKey.of("stream.maxBytesPerSecond", ValueType.BYTES, 0L)
          .atLeast(0L)
          .doc("limit on the bytes per second this node streams out, and separately in; 0: none");

  public static final ConfigKey<Duration> SNAPSHOT_TTL =
      ConfigKey.of("stream.snapshotTtl", ValueType.DURATION, Duration.ofHours(1))
          .range(Duration.ofSeconds(1), Duration.ofDays(7))
          .doc("how long a source keeps an unused range snapshot for its receiver to resume");

  public static final ConfigKey<Boolean> COPY_ON_JOIN =
      ConfigKey.of("stream.copyOnJoin", ValueType.BOOLEAN, true)
          .doc(
              "whether this node copies the tables of the ranges a membership change adds it to;"
                  + " false: it answers the copy requests at once and the settle brings every key");

  static final List<ConfigKey<?>> ALL = List.of(MAX_BYTES_PER_SECOND, SNAPSHOT_TTL, COPY_ON_JOIN);
}
