package io.frsm.api.spi;

import io.frsm.api.FrsmClient;

/**
 * Builds clients for {@link io.frsm.api.FrsmClient#builder()}. frsm-api depends on the JDK only, so
 * implementations are found with {@link java.util.ServiceLoader}: each lists itself in {@code
 * META-INF/services/io.frsm.api.spi.ClientProvider}. {@code io.frsm:frsm-client} provides the
 * seed-based client; {@code io.frsm:frsm-server} adds one that reads the seeds from ZooKeeper.
 */
public interface ClientProvider {

  /**
   * Whether this provider builds clients for {@code settings} (for example only those that start
   * from seeds). The builder uses the first provider on the class path that accepts.
   */
  boolean accepts(ClientSettings settings);

  /**
   * A connected client for {@code settings}. Throws an {@link io.frsm.api.FrsmException} if the
   * cluster cannot be reached or the settings are invalid.
   */
  FrsmClient create(ClientSettings settings);
}
