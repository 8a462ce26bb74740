package io.frsm.client;

import io.frsm.api.FrsmClient;
import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;

/**
 * Registered in {@code META-INF/services}: {@code FrsmClient.builder().seeds(...)} builds a {@link
 * SeedClient} with nothing but frsm-client on the class path.
 */
public final class SeedClientProvider implements ClientProvider {
  @Override
  public boolean accepts(ClientSettings settings) {
    return settings.fromSeeds();
  }

  @Override
  public FrsmClient create(ClientSettings settings) {
    return SeedClient.connect(settings);
  }
}
