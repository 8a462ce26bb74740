package io.frsm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.TlsSettings;
import io.frsm.api.spi.ZooKeeperTlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The builder hands what the user set, or the documented defaults, to the provider found on the
 * class path that accepts the settings (this module's tests register {@link RecordingProvider}),
 * and refuses bad values naming the setting.
 */
class FrsmClientBuilderTest {
  private static final AtomicReference<ClientSettings> BUILT = new AtomicReference<>();

  /** Records the settings it was asked to build a client for; the client is never used. */
  public static final class RecordingProvider implements ClientProvider {
    @Override
    public boolean accepts(ClientSettings settings) {
      return !settings.clusterId().equals("nobody-accepts");
    }

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
        new ClientSettings(
            List.of(),
            "zk:2181",
            "c",
            Duration.ofSeconds(7),
            Duration.ofSeconds(10),
            Duration.ofSeconds(10),
            ClientObserver.NONE,
            null,
            1,
            null,
            null,
            Duration.ofSeconds(20),
            null,
            true),
        BUILT.get());
  }

  @Test
  void build_passesWhatWasSet() {
    ClientObserver observer = new ClientObserver() {};
    java.util.concurrent.Executor direct = Runnable::run;
    FrsmClient.builder()
        .observer(observer)
        .callbackExecutor(direct)
        .ioThreads(3)
        .zookeeper("zk:2181")
        .clusterId("c")
        .operationTimeout(Duration.ofSeconds(3))
        .zookeeperSessionTimeout(Duration.ofSeconds(4))
        .connectTimeout(Duration.ofSeconds(5))
        .tls(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"))
        .zookeeperCredential(Path.of("zk.credential"))
        .zookeeperTls(Path.of("zk-ca.pem"), Path.of("zk-me.pem"))
        .build();
    assertEquals(
        new ClientSettings(
            List.of(),
            "zk:2181",
            "c",
            Duration.ofSeconds(3),
            Duration.ofSeconds(4),
            Duration.ofSeconds(5),
            observer,
            new TlsSettings(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem")),
            3,
            Path.of("zk.credential"),
            new ZooKeeperTlsSettings(Path.of("zk-ca.pem"), null, Path.of("zk-me.pem"), null, true),
            ClientSettings.DEFAULT_KEEPALIVE_INTERVAL,
            direct,
            ClientSettings.DEFAULT_SHARE_EVENT_LOOPS),
        BUILT.get());
  }

  @Test
  void keepaliveInterval_isPassedOn_andMustBePositive() {
    FrsmClient.builder()
        .seeds("a:1")
        .clusterId("c")
        .insecure()
        .keepaliveInterval(Duration.ofMillis(250))
        .build();
    assertEquals(Duration.ofMillis(250), BUILT.get().keepaliveInterval());
    FrsmClient.builder().seeds("a:1").clusterId("c").insecure().build();
    assertEquals(Duration.ofSeconds(20), BUILT.get().keepaliveInterval(), "the default");
    var zero =
        assertThrows(
            IllegalArgumentException.class,
            () -> FrsmClient.builder().keepaliveInterval(Duration.ZERO));
    assertTrue(zero.getMessage().contains("keepaliveInterval"), zero.getMessage());
  }

  @Test
  void shareEventLoops_isOnByDefault_andIsPassedOn() {
    FrsmClient.builder().seeds("a:1").clusterId("c").insecure().build();
    assertTrue(BUILT.get().shareEventLoops(), "the default");
    FrsmClient.builder().seeds("a:1").clusterId("c").insecure().shareEventLoops(false).build();
    assertFalse(BUILT.get().shareEventLoops());
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
  void insecure_afterTls_dropsTheTlsSettings_andTls_afterInsecure_keepsThem() {
    FrsmClient.builder()
        .seeds("a:1")
        .clusterId("c")
        .tls(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"))
        .insecure()
        .build();
    assertEquals(null, BUILT.get().tls());
    FrsmClient.builder()
        .seeds("a:1")
        .clusterId("c")
        .insecure()
        .tls(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"))
        .build();
    assertEquals(
        new TlsSettings(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem")),
        BUILT.get().tls());
  }

  @Test
  void zookeeperTls_goesOnlyWithZooKeeper_andAKeyStorePasswordNeedsAKeyStore() {
    FrsmClient.builder()
        .seeds("a:1")
        .clusterId("c")
        .insecure()
        .zookeeperTls(Path.of("zk-ca.pem"), null)
        .build();
    assertEquals(null, BUILT.get().zookeeperTls(), "seeds: no ZooKeeper session at all");
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ZooKeeperTlsSettings(
                Path.of("zk-ca.pem"), null, null, Path.of("zk-key.password"), true));
  }

  @Test
  void seeds_areParsedAndNormalized() {
    FrsmClient.builder()
        .seeds(" a:7500,10.0.0.2:7501 ,[::1]:7502")
        .clusterId("c")
        .insecure()
        .build();
    assertEquals(List.of("a:7500", "10.0.0.2:7501", "[::1]:7502"), BUILT.get().seeds());
    assertEquals("", BUILT.get().zookeeper());
    assertTrue(BUILT.get().fromSeeds());
  }

  @Test
  void badSeeds_areRefused_namingTheEntry() {
    for (String bad :
        List.of("", "a", "a:", ":7500", "a:0", "a:65536", "a:x", "a:1,", "::1:7500")) {
      var e =
          assertThrows(IllegalArgumentException.class, () -> FrsmClient.builder().seeds(bad), bad);
      assertTrue(e.getMessage().startsWith("seeds: '"), e.getMessage());
    }
  }

  @Test
  void noProviderAccepting_isAnFrsmException_sayingWhatToAdd() {
    var e =
        assertThrows(
            FrsmException.class,
            () -> FrsmClient.builder().seeds("a:1").clusterId("nobody-accepts").insecure().build());
    assertTrue(e.getMessage().contains("io.frsm:frsm-client"), e.getMessage());
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
    var io = assertThrows(IllegalArgumentException.class, () -> builder.ioThreads(0));
    assertTrue(io.getMessage().contains("ioThreads"), io.getMessage());
    assertThrows(IllegalArgumentException.class, () -> builder.ioThreads(65));
    var connect =
        assertThrows(IllegalArgumentException.class, () -> builder.connectTimeout(Duration.ZERO));
    assertTrue(connect.getMessage().contains("connectTimeout"), connect.getMessage());
    var noZookeeper =
        assertThrows(
            IllegalStateException.class, () -> FrsmClient.builder().clusterId("c").build());
    assertTrue(noZookeeper.getMessage().contains("zookeeper"), noZookeeper.getMessage());
    assertTrue(noZookeeper.getMessage().contains("seeds"), noZookeeper.getMessage());
    var both =
        assertThrows(
            IllegalStateException.class,
            () -> FrsmClient.builder().seeds("a:1").zookeeper("zk").clusterId("c").build());
    assertTrue(both.getMessage().contains("not both"), both.getMessage());
    var noCluster =
        assertThrows(
            IllegalStateException.class, () -> FrsmClient.builder().zookeeper("zk").build());
    assertTrue(noCluster.getMessage().contains("clusterId"), noCluster.getMessage());
  }
}
