package io.frsm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The builder hands what the user set, or the documented defaults, to the provider found on the
 * class path (this module's tests register {@link RecordingProvider}), and refuses bad values
 * naming the setting.
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
    FrsmClient.builder().zookeeper("zk:2181").clusterId("c").insecure().build();
    assertEquals(
        new ClientSettings("zk:2181", "c", Duration.ofSeconds(7), Duration.ofSeconds(10)),
        BUILT.get());
  }

  @Test
  void build_passesWhatWasSet() {
    FrsmClient.builder()
        .zookeeper("zk:2181")
        .clusterId("c")
        .operationTimeout(Duration.ofSeconds(3))
        .zookeeperSessionTimeout(Duration.ofSeconds(4))
        .tls(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"))
        .build();
    assertEquals(
        new ClientSettings(
            "zk:2181",
            "c",
            Duration.ofSeconds(3),
            Duration.ofSeconds(4),
            new TlsSettings(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"))),
        BUILT.get());
  }

  @Test
  void build_withoutChoosingTlsOrInsecure_isRefused() {
    var unchosen =
        assertThrows(
            IllegalStateException.class,
            () -> FrsmClient.builder().zookeeper("zk").clusterId("c").build());
    assertTrue(unchosen.getMessage().contains("tls("), unchosen.getMessage());
    assertTrue(unchosen.getMessage().contains("insecure()"), unchosen.getMessage());
  }

  @Test
  void badValues_areRefused_namingTheSetting() {
    FrsmClientBuilder builder = FrsmClient.builder();
    var zero =
        assertThrows(IllegalArgumentException.class, () -> builder.operationTimeout(Duration.ZERO));
    assertTrue(zero.getMessage().contains("operationTimeout"), zero.getMessage());
    var negative =
        assertThrows(
            IllegalArgumentException.class,
            () -> builder.zookeeperSessionTimeout(Duration.ofSeconds(-1)));
    assertTrue(negative.getMessage().contains("zookeeperSessionTimeout"), negative.getMessage());
    var noZookeeper =
        assertThrows(
            IllegalStateException.class, () -> FrsmClient.builder().clusterId("c").build());
    assertTrue(noZookeeper.getMessage().contains("zookeeper"), noZookeeper.getMessage());
    var noCluster =
        assertThrows(
            IllegalStateException.class, () -> FrsmClient.builder().zookeeper("zk").build());
    assertTrue(noCluster.getMessage().contains("clusterId"), noCluster.getMessage());
  }
}
