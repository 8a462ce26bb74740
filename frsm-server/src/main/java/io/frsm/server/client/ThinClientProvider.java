package io.frsm.server.client;

import io.frsm.api.FrsmClient;
import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;

/**
 * Registered in {@code META-INF/services}: {@code FrsmClient.builder()} builds a {@link
 * ThinClient}.
 */
public final class ThinClientProvider implements ClientProvider {
  @Override
  public boolean accepts(ClientSettings settings) {
    return !settings.fromSeeds();
  }

  @Override
  public FrsmClient create(ClientSettings settings) {
    return ThinClient.connect(settings);
  }
}
