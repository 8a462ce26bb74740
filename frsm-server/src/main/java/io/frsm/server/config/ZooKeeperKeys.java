package io.frsm.server.config;

import java.time.Duration;
import java.util.List;

/** The keys of the {@code zookeeper} section: the ensemble that holds membership and leases. */
public final class ZooKeeperKeys {
  private ZooKeeperKeys() {}

  public static final ConfigKey<String> CONNECT =
      ConfigKey.of("zookeeper.connect", ValueType.TEXT, null)
          .check(
              s -> {
                if (s.isBlank()) {
                  throw new IllegalArgumentException("must not be empty");
                }
              })
          .option("zookeeper")
          .doc("the ensemble's connect string");

  public static final ConfigKey<Duration> SESSION_TIMEOUT =
      ConfigKey.of("zookeeper.sessionTimeout", ValueType.DURATION, Duration.ofSeconds(10))
          .range(Timings.ONE_MS, Timings.MAX)
          .option("zookeeperSessionTimeout")
          .doc("membership and leases end this long after the node stops answering ZooKeeper");

  static final List<ConfigKey<?>> ALL = List.of(CONNECT, SESSION_TIMEOUT);
}
