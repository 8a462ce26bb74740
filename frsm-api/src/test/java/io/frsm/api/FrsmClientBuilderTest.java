package io.frsm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The builder hands what the user set, or the documented defaults, to the provider found on the
 * class path (this module's tests register {@link RecordingProvider}), and refuses bad values.
 */
class FrsmClientBuilderTest {
  private static final AtomicReference<ClientSettings> BUILT = new AtomicReference<>();

  /** Records the settings it was asked to build a client for; the client is never used. */
  public static final class RecordingProvider implements ClientProvider {
    @Override
    public FrsmClient create(ClientSettings settings) {
      BUILT.set(settings);
      return null;
    }
  }

  @Test
  void build_passesTheDefaults() {
    FrsmClient.builder().zookeeper("zk:2181").clusterId("c").build();
    assertEquals(
        new ClientSettings("zk:2181", "c", Duration.ofSeconds(7), Duration.ofSeconds(10), 64),
        BUILT.get());
    assertEquals(
        BUILT.get(),
        new ClientSettings("zk:2181", "c", Duration.ofSeconds(7), Duration.ofSeconds(10)),
        "the four-argument settings take the default directConnectionsPerNode");
  }

  @Test
  void build_passesWhatWasSet() {
    FrsmClient.builder()
        .zookeeper("zk:2181")
        .clusterId("c")
        .operationTimeout(Duration.ofSeconds(3))
        .zookeeperSessionTimeout(Duration.ofSeconds(4))
        .directConnectionsPerNode(0)
        .build();
    assertEquals(
        new ClientSettings("zk:2181", "c", Duration.ofSeconds(3), Duration.ofSeconds(4), 0),
        BUILT.get());
  }

  @Test
  void badValues_areRefused_namingTheSetting() {
    FrsmClientBuilder builder = FrsmClient.builder();
    var e =
        assertThrows(IllegalArgumentException.class, () -> builder.directConnectionsPerNode(-1));
    assertTrue(e.getMessage().contains("directConnectionsPerNode"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> builder.operationTimeout(Duration.ZERO));
    var s =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ClientSettings("zk", "c", Duration.ofSeconds(1), Duration.ofSeconds(1), -1));
    assertTrue(s.getMessage().contains("directConnectionsPerNode"), s.getMessage());
    assertThrows(IllegalStateException.class, () -> FrsmClient.builder().clusterId("c").build());
  }
}
