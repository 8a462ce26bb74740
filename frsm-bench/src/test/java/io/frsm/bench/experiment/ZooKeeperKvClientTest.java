package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ZooKeeper side of experiment 6 keeps the FrsmClient contract the workload relies on. */
class ZooKeeperKvClientTest {
  @TempDir Path dir;

  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createGetCasAndFenceFollowTheClientContract() throws Exception {
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start(dir);
        ZooKeeperKvClient client =
            ZooKeeperKvClient.connect(List.of(zk.connectString()), 2, true)) {
      byte[] key = b("key-0000000042");
      assertEquals(Optional.empty(), client.get(key));

      Version v0 = client.create(key, b("a"));
      assertThrows(KeyExistsException.class, () -> client.create(key, b("again")));
      Version v1 = client.cas(key, v0, b("b"));
      assertEquals(v0.next(), v1);
      assertThrows(CasMismatchException.class, () -> client.cas(key, v0, b("stale")));

      Optional<Versioned> fenced = client.fence(key);
      assertTrue(fenced.isPresent());
      assertEquals("b", new String(fenced.get().value(), StandardCharsets.UTF_8));
      assertEquals(v1.next(), fenced.get().version());
      assertThrows(CasMismatchException.class, () -> client.cas(key, v1, b("after fence")));
      assertEquals(fenced, client.get(key));
    }
  }

  @Test
  void keysThatAreNoSafeZnodeNameAreHexEncoded() {
    assertEquals("/kv/key-1_a", ZooKeeperKvClient.path(b("key-1_a")));
    assertEquals("/kv/x2f2e", ZooKeeperKvClient.path(b("/.")));
  }
}
