package io.frsm.server.metrics;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.MetricsKeys;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where the metrics endpoint listens and what it admits: the {@code metrics.*} keys ({@link
 * MetricsKeys}), with the bind address resolved and the password file read.
 *
 * @param address the interface and port to bind (port 0: an ephemeral one)
 * @param maxConnections open connections beyond this are closed as they arrive
 * @param requestTimeout a connection that has not sent a whole request head this long after it was
 *     accepted is closed; so is one whose answer has not been taken this long after it was written
 * @param basicAuth the credentials {@code /metrics} asks for; empty: none
 */
public record EndpointSettings(
    InetSocketAddress address,
    int maxConnections,
    Duration requestTimeout,
    Optional<BasicAuth> basicAuth) {

  public EndpointSettings {
    Objects.requireNonNull(address, "address");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    Objects.requireNonNull(basicAuth, "basicAuth");
    if (address.isUnresolved()) {
      throw new IllegalArgumentException("an unresolved address: " + address);
    }
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, was " + maxConnections);
    }
    if (requestTimeout.isNegative() || requestTimeout.isZero()) {
      throw new IllegalArgumentException("requestTimeout must be positive: " + requestTimeout);
    }
  }

  /** {@code address} with the keys' defaults: no authentication. */
  public static EndpointSettings defaults(InetSocketAddress address) {
    return new EndpointSettings(
        address,
        MetricsKeys.MAX_CONNECTIONS.defaultValue(),
        MetricsKeys.REQUEST_TIMEOUT.defaultValue(),
        Optional.empty());
  }

  /**
   * The endpoint a config describes ({@code metrics.port} not 0).
   *
   * @throws ConfigException naming the key whose value cannot be used: a bind address that does not
   *     resolve, a basic-auth user without a password file or the reverse, a password file that
   *     cannot be read or is empty
   */
  public static EndpointSettings fromConfig(FrsmConfig config) {
    String host = config.get(MetricsKeys.BIND_ADDRESS);
    InetAddress bindAddress;
    try {
      bindAddress = InetAddress.getByName(host);
    } catch (UnknownHostException e) {
      throw new ConfigException(
          "config key '" + MetricsKeys.BIND_ADDRESS.name() + "': cannot resolve '" + host + "'", e);
    }
    return new EndpointSettings(
        new InetSocketAddress(bindAddress, config.get(MetricsKeys.PORT)),
        config.get(MetricsKeys.MAX_CONNECTIONS),
        config.get(MetricsKeys.REQUEST_TIMEOUT),
        basicAuth(config));
  }

  private static Optional<BasicAuth> basicAuth(FrsmConfig config) {
    String user = config.get(MetricsKeys.BASIC_AUTH_USER);
    Path passwordFile = config.get(MetricsKeys.BASIC_AUTH_PASSWORD_FILE);
    if (user == null && passwordFile == null) {
      return Optional.empty();
    }
    if (user == null || passwordFile == null) {
      // Half a credential must not silently leave the endpoint open.
      throw new ConfigException(
          "config keys '"
              + MetricsKeys.BASIC_AUTH_USER.name()
              + "' and '"
              + MetricsKeys.BASIC_AUTH_PASSWORD_FILE.name()
              + "' are set together or not at all");
    }
    return Optional.of(BasicAuth.fromPasswordFile(user, passwordFile));
  }
}
