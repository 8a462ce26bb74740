package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.transport.NettyLeakCheck;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every operation and every error through the embedded client and the thin client, against three
 * real nodes (Netty on loopback, LSM on disk, embedded ZooKeeper). Netty's paranoid leak detector
 * watches every buffer the nodes' transports and client protocol allocate.
 */
@ExtendWith(NettyLeakCheck.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClusterOperationsIT {
  private TestCluster cluster;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    cluster = new TestCluster(dir);
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyOperationAndError_throughTheEmbeddedClient() {
    try (FrsmClient client = cluster.node(1).client()) {
      exerciseEveryOperation(client, "embedded/");
      rejectsInvalidArguments(client);
    }
  }

  @Test
  void everyOperationAndError_throughTheThinClient() {
    FrsmClient client = cluster.thinClient();
    exerciseEveryOperation(client, "thin/");
    rejectsInvalidArguments(client);
  }

  @Test
  void aWriteThroughOneNode_isReadThroughEveryOtherPath() {
    byte[] key = bytes("shared/k");
    Version v;
    try (FrsmClient writer = cluster.node(2).client()) {
      v = writer.create(key, bytes("from node 2"));
    }
    for (FrsmClient reader :
        new FrsmClient[] {
          cluster.node(1).client(), cluster.node(3).client(), cluster.thinClient()
        }) {
      Versioned got = reader.get(key).orElseThrow();
      assertEquals(v, got.version());
      assertArrayEquals(bytes("from node 2"), got.value());
    }
  }

  private static void exerciseEveryOperation(FrsmClient c, String prefix) {
    byte[] key = bytes(prefix + "key");
    assertEquals(Optional.empty(), c.get(key), "get of a never-created key");

    Version v1 = c.create(key, bytes("one"));
    assertEquals(0, v1.timestamp(), "a create starts a new epoch at timestamp 0");
    assertTrue(v1.epoch() > 0);
    assertEquals(new Versioned(bytes("one"), v1), c.get(key).orElseThrow());

    KeyExistsException exists =
        assertThrows(KeyExistsException.class, () -> c.create(key, bytes("again")));
    assertEquals(new Versioned(bytes("one"), v1), exists.current());

    Version v2 = c.cas(key, v1, bytes("two"));
    assertEquals(v1.next(), v2);

    CasMismatchException stale =
        assertThrows(CasMismatchException.class, () -> c.cas(key, v1, bytes("lost")));
    assertEquals(v1, stale.expected());
    assertEquals(Optional.of(new Versioned(bytes("two"), v2)), stale.current());

    c.delete(key, v2);
    assertEquals(Optional.empty(), c.get(key), "get after delete");
    CasMismatchException onAbsent =
        assertThrows(CasMismatchException.class, () -> c.delete(key, v2));
    assertEquals(Optional.empty(), onAbsent.current(), "a deleted key is absent");
    assertThrows(CasMismatchException.class, () -> c.cas(key, v2, bytes("x")));

    Version v3 = c.create(key, bytes("three"));
    assertTrue(v3.epoch() > v2.epoch(), "a re-create opens a newer epoch: " + v3 + " vs " + v2);
    assertEquals(0, v3.timestamp());

    Versioned fenced = c.fence(key).orElseThrow();
    assertEquals(v3.next(), fenced.version(), "a fence bumps the version");
    assertArrayEquals(bytes("three"), fenced.value(), "and keeps the value");
    assertThrows(
        CasMismatchException.class,
        () -> c.cas(key, v3, bytes("too late")),
        "no CAS expecting a version older than the fence's can succeed");
    assertEquals(fenced.version().next(), c.cas(key, fenced.version(), bytes("four")));

    byte[] absent = bytes(prefix + "never");
    assertEquals(Optional.empty(), c.fence(absent), "fence on an absent key");
    Version afterFence = c.create(absent, bytes("made"));
    assertEquals(new Versioned(bytes("made"), afterFence), c.get(absent).orElseThrow());

    // Async twins complete with the same results.
    byte[] asyncKey = bytes(prefix + "async");
    Version a1 = c.createAsync(asyncKey, bytes("a")).join();
    assertEquals(a1.next(), c.casAsync(asyncKey, a1, bytes("b")).join());
    assertArrayEquals(bytes("b"), c.getAsync(asyncKey).join().orElseThrow().value());
  }

  private static void rejectsInvalidArguments(FrsmClient c) {
    byte[] ok = bytes("valid");
    Version v = new Version(1, 0);
    assertThrows(InvalidRequestException.class, () -> c.get(null));
    assertThrows(InvalidRequestException.class, () -> c.get(new byte[0]));
    assertThrows(InvalidRequestException.class, () -> c.get(new byte[64 * 1024 + 1]));
    assertThrows(InvalidRequestException.class, () -> c.create(ok, null));
    assertThrows(InvalidRequestException.class, () -> c.create(ok, new byte[1024 * 1024 + 1]));
    assertThrows(InvalidRequestException.class, () -> c.cas(ok, null, bytes("x")));
    assertThrows(InvalidRequestException.class, () -> c.delete(ok, null));
    assertThrows(InvalidRequestException.class, () -> c.fence(new byte[0]));
    byte[] reserved = "\0frsm/range-term/0".getBytes(UTF_8);
    assertThrows(InvalidRequestException.class, () -> c.get(reserved));
    // The async form fails its future instead of throwing.
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> c.createAsync(new byte[0], ok).get());
    assertInstanceOf(InvalidRequestException.class, e.getCause());
    // Nothing was written by any of them.
    assertEquals(Optional.empty(), c.get(ok));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
