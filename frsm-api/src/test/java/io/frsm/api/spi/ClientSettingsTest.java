package io.frsm.api.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.ClientObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one constructor validates; {@code startingFrom} swaps ZooKeeper for seeds, keeps the rest.
 */
class ClientSettingsTest {
  private static final ClientObserver OBSERVER = new ClientObserver() {};
  private static final TlsSettings TLS =
      new TlsSettings(Path.of("ca.pem"), Path.of("me.pem"), Path.of("me-key.pem"));
  private static final ZooKeeperTlsSettings ZOOKEEPER_TLS =
      new ZooKeeperTlsSettings(Path.of("zk-ca.pem"), null, null, null, true);

  /** Settings with fixed timeouts, observer, TLS, 2 threads and the defaults; the rest as given. */
  private static ClientSettings settings(
      List<String> seeds, String zookeeper, Path credential, ZooKeeperTlsSettings zookeeperTls) {
    return new ClientSettings(
        seeds,
        zookeeper,
        "c",
        Duration.ofSeconds(3),
        Duration.ofSeconds(4),
        Duration.ofSeconds(5),
        OBSERVER,
        TLS,
        2,
        credential,
        zookeeperTls,
        ClientSettings.DEFAULT_KEEPALIVE_INTERVAL,
        null,
        ClientSettings.DEFAULT_SHARE_EVENT_LOOPS);
  }

  private static ClientSettings fromZooKeeper() {
    return settings(List.of(), "zk:2181", Path.of("zk.credential"), ZOOKEEPER_TLS);
  }

  @Test
  void startingFrom_dropsZooKeeper_andKeepsTheRest() {
    ClientSettings seeded = fromZooKeeper().startingFrom(List.of("a:1", "b:2"));
    assertEquals(settings(List.of("a:1", "b:2"), "", null, null), seeded);
    assertTrue(seeded.fromSeeds());
  }

  @Test
  void startingFrom_nothing_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> fromZooKeeper().startingFrom(List.of()));
  }

  @Test
  void seedsAndZooKeeperTogether_areRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> settings(List.of("a:1"), "zk:2181", null, null));
  }
}
