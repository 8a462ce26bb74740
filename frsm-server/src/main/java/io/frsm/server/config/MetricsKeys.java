package io.frsm.server.config;

import java.util.List;

/** The keys of the {@code metrics} section: the scrape endpoint {@code frsm server} runs. */
public final class MetricsKeys {
  private MetricsKeys() {}

  /** Not a node setting: the server command runs the endpoint and hands the node its registry. */
  public static final ConfigKey<Integer> PORT =
      ConfigKey.of("metrics.port", ValueType.INTEGER, 9404)
          .range(0, 65535)
          .option(null)
          .doc("Prometheus /metrics and /health on the peer address's host; 0 turns it off");

  static final List<ConfigKey<?>> ALL = List.of(PORT);
}
