package io.frsm.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code metrics} section: the scrape and health endpoint {@code frsm server} runs
 * ({@code io.frsm.server.metrics.EndpointSettings} reads them). None is a node setting: the server
 * command runs the endpoint and hands the node its registry, so no {@code FrsmNodeBuilder} option
 * sets them.
 */
public final class MetricsKeys {
  private MetricsKeys() {}

  public static final ConfigKey<Integer> PORT =
      ConfigKey.of("metrics.port", ValueType.INTEGER, 9404)
          .range(0, 65535)
          .option(null)
          .doc("Prometheus /metrics and /health on metrics.bindAddress; 0 turns it off");

  /**
   * Loopback by default: the endpoint answers anyone who reaches it, so exposing it further is the
   * operator's choice (a container that publishes the port binds 0.0.0.0).
   */
  public static final ConfigKey<String> BIND_ADDRESS =
      ConfigKey.of("metrics.bindAddress", ValueType.TEXT, "127.0.0.1")
          .option(null)
          .doc("the interface the endpoint listens on; 0.0.0.0 for every interface");

  public static final ConfigKey<Integer> MAX_CONNECTIONS =
      ConfigKey.of("metrics.maxConnections", ValueType.INTEGER, 32)
          .range(1, 1024)
          .option(null)
          .doc("open connections beyond this are closed as they arrive");

  public static final ConfigKey<Duration> REQUEST_TIMEOUT =
      ConfigKey.of("metrics.requestTimeout", ValueType.DURATION, Duration.ofSeconds(5))
          .range(Duration.ofMillis(10), Duration.ofMinutes(1))
          .option(null)
          .doc(
              "a connection sends its request head, and takes the answer, within this or is closed");

  /**
   * Unset (the default): no authentication. Set together with {@link #BASIC_AUTH_PASSWORD_FILE}.
   */
  public static final ConfigKey<String> BASIC_AUTH_USER =
      ConfigKey.of("metrics.basicAuthUser", ValueType.TEXT, (String) null)
          .derivedByDefault("(none)")
          .check(
              user -> {
                // RFC 7617: the user-id ends at the first colon of the credentials.
                if (user.indexOf(':') >= 0) {
                  throw new IllegalArgumentException("a basic-auth user name has no ':'");
                }
              })
          .option(null)
          .doc("/metrics asks for HTTP basic authentication as this user");

  public static final ConfigKey<Path> BASIC_AUTH_PASSWORD_FILE =
      ConfigKey.of("metrics.basicAuthPasswordFile", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option(null)
          .doc("the file holding that user's password (one line)");

  static final List<ConfigKey<?>> ALL =
      List.of(
          PORT,
          BIND_ADDRESS,
          MAX_CONNECTIONS,
          REQUEST_TIMEOUT,
          BASIC_AUTH_USER,
          BASIC_AUTH_PASSWORD_FILE);

  /** Every key of the section, in documentation order. */
  public static List<ConfigKey<?>> all() {
    return ALL;
  }
}
