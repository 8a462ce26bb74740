package io.frsm.api.spi;

import io.frsm.api.FrsmClient;

/**
 * Builds thin clients for {@link io.frsm.api.FrsmClient#builder()}. frsm-api depends on the JDK
 * only, so the implementation (in frsm-server) is found with {@link java.util.ServiceLoader}: it
 * lists itself in {@code META-INF/services/io.frsm.api.spi.ClientProvider}.
 */
public interface ClientProvider {

  /**
   * A connected client for {@code settings}. Throws an {@link io.frsm.api.FrsmException} if the
   * cluster cannot be reached or the settings are invalid.
   */
  FrsmClient create(ClientSettings settings);
}
