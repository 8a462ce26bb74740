package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.ClientObserver;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.client.SeedClient;
import io.frsm.client.transport.SharedEventLoops;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.tls.TlsFiles;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed-based client ({@code FrsmClient.builder().seeds(...)}) against three real nodes: it
 * starts from any live seed, learns the topology over its control connection, follows a kill of the
 * node that connection is on, and keeps serving; with no live seed it fails fast, saying so.
 */
class SeedClientIT {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @Test
  void aDeadFirstSeed_isSkipped_andTheControlConnectionFollowsAKill(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      TlsFiles admin = cluster.tls().admin();
      int deadPort;
      try (ServerSocket s = new ServerSocket(0)) {
        deadPort = s.getLocalPort(); // closed again: connecting there is refused
      }
      String seeds = "127.0.0.1:" + deadPort + "," + cluster.seed(1);
      try (FrsmClient client =
          FrsmClient.builder()
              .seeds(seeds)
              .clusterId(TestCluster.CLUSTER_ID)
              .operationTimeout(TestCluster.CLIENT_TIMEOUT)
              .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
              .build()) {
        SeedClient seedClient = assertInstanceOf(SeedClient.class, client);
        TopologySnapshot first = seedClient.topology();
        assertNotNull(first, "built only once a node told the topology");
        assertEquals(4_020_000, first.createSettleMicros(), "the cluster's T + 2ε");
        byte[] key = "seeded".getBytes(UTF_8);
        Version v = client.create(key, bytes("1"));
        assertArrayEquals(bytes("1"), client.get(key).orElseThrow().value());

        // The control connection is on node 1 (the only live seed): kill it. The client moves to
        // another member and hears node 1 go down there.
        cluster.crash(1);
        Await.until(
            () -> {
              TopologySnapshot t = seedClient.topology();
              return t.member(1) != null && !t.member(1).live();
            },
            WAIT,
            "a view from another node showing node 1 down");
        Version next = casUntilDone(client, key, v, bytes("2"));
        assertEquals(v.next(), next);
        assertArrayEquals(bytes("2"), client.get(key).orElseThrow().value());
      }
    }
  }

  @Test
  void close_letsCallsInFlightEnd_refusesNewOnes_andTheObserverHearsEveryEnd(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      TlsFiles admin = cluster.tls().admin();
      List<String> ended = new CopyOnWriteArrayList<>();
      AtomicInteger views = new AtomicInteger();
      FrsmClient client =
          FrsmClient.builder()
              .seeds(cluster.seeds())
              .clusterId(TestCluster.CLUSTER_ID)
              .operationTimeout(TestCluster.CLIENT_TIMEOUT)
              .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
              .ioThreads(2) // connections spread over two network threads
              .observer(
                  new ClientObserver() {
                    @Override
                    public void operationEnded(String operation, String outcome, long nanos) {
                      ended.add(operation + " " + outcome);
                    }

                    @Override
                    public void topologyChanged(int liveNodes) {
                      views.incrementAndGet();
                    }
                  })
              .build();
      assertTrue(views.get() >= 1, "the first view was heard");
      byte[] key = bytes("closing");
      CompletableFuture<Version> inFlight = client.createAsync(key, bytes("v"));
      client.close(); // graceful: the create, on its way, ends by itself first
      assertEquals(
          new Version(inFlight.join().epoch(), 0), inFlight.join(), "created, not unknown");
      assertThrows(NotExecutedException.class, () -> client.get(key));
      assertTrue(ended.contains("create ok"), ended.toString());
      assertTrue(ended.contains("get not_executed"), ended.toString());
    }
  }

  /**
   * {@code callbackExecutor(Runnable::run)}: an async call's continuation runs on the client's
   * network thread (not on the client's callback pool), can chain the next async call there, and a
   * sync call made there fails at once instead of waiting for an answer only that thread could
   * read. A continuation attached after its answer came runs on the attaching thread instead (the
   * test's, here): the test repeats the call until one ran elsewhere.
   */
  @Test
  void aDirectCallbackExecutor_runsContinuationsOnTheNetworkThread_andRefusesSyncCallsThere(
      @TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      TlsFiles admin = cluster.tls().admin();
      try (FrsmClient client =
          FrsmClient.builder()
              .seeds(cluster.seeds())
              .clusterId(TestCluster.CLUSTER_ID)
              .operationTimeout(TestCluster.CLIENT_TIMEOUT)
              .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
              .callbackExecutor(Runnable::run)
              .build()) {
        byte[] key = bytes("direct");
        Version v = client.create(key, bytes("0"));
        Thread test = Thread.currentThread();
        int onOtherThread = 0;
        byte[] last = null;
        for (int i = 1; i <= 20 && onOtherThread == 0; i++) {
          String[] ranOn = {null};
          RuntimeException[] syncCall = {null};
          Version expected = v;
          byte[] next = bytes(Integer.toString(i));
          CompletableFuture<Version> chained =
              client
                  .getAsync(key)
                  .thenCompose(
                      read -> {
                        ranOn[0] = Thread.currentThread().getName();
                        if (Thread.currentThread() != test) {
                          try {
                            client.get(key);
                          } catch (RuntimeException e) {
                            syncCall[0] = e;
                          }
                        }
                        return client.casAsync(key, expected, next);
                      });
          v = chained.get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
          assertEquals(expected.next(), v, "the CAS chained in the continuation applied");
          last = next;
          if (!ranOn[0].equals(test.getName())) {
            onOtherThread++;
            assertTrue(!ranOn[0].contains("callbacks"), "not the client's pool: " + ranOn[0]);
            IllegalStateException refused =
                assertInstanceOf(IllegalStateException.class, syncCall[0], ranOn[0]);
            assertTrue(
                refused.getMessage().contains("network or timer threads"), refused.getMessage());
          }
        }
        assertEquals(1, onOtherThread, "a continuation ran on the network thread in 20 tries");
        assertArrayEquals(
            last,
            client.get(key).orElseThrow().value(),
            "sync calls from the caller's own thread still work");
      }
    }
  }

  /**
   * Clients of one process share their network threads by default ({@code shareEventLoops}): each
   * serves on them, closing one leaves the others serving, and the threads end with the last one; a
   * sync call of one made on the shared thread from another's direct callback is refused (it would
   * wait for an answer that thread has to read), while a client with threads of its own serves
   * beside them and may be called from there.
   */
  @Test
  void clientsOfAProcess_shareNetworkThreads_untilTheLastOneCloses(@TempDir Path dir)
      throws Exception {
    int threads = 3; // no other client of this test JVM asks for 3: the lease counts are ours
    try (TestCluster cluster = new TestCluster(dir)) {
      TlsFiles admin = cluster.tls().admin();
      java.util.function.Function<Boolean, FrsmClient> build =
          share ->
              FrsmClient.builder()
                  .seeds(cluster.seeds())
                  .clusterId(TestCluster.CLUSTER_ID)
                  .operationTimeout(TestCluster.CLIENT_TIMEOUT)
                  .tls(admin.caBundle(), admin.certificateChain(), admin.privateKey())
                  .ioThreads(threads)
                  .callbackExecutor(Runnable::run)
                  .shareEventLoops(share)
                  .build();
      assertEquals(0, SharedEventLoops.leases(threads));
      FrsmClient a = build.apply(true);
      FrsmClient b = build.apply(true);
      FrsmClient own = build.apply(false);
      assertEquals(2, SharedEventLoops.leases(threads), "a and b share; own does not");
      byte[] key = bytes("shared-loops");
      Version v = a.create(key, bytes("a"));
      v = b.cas(key, v, bytes("b"));
      v = own.cas(key, v, bytes("own"));
      assertArrayEquals(bytes("own"), a.get(key).orElseThrow().value());

      // From a's network thread (a direct callback): b's sync call is refused, own's is served.
      String[] ranOn = {null};
      RuntimeException[] fromB = {null};
      byte[][] fromOwn = {null};
      for (int i = 0; i < 20 && ranOn[0] == null; i++) {
        Thread test = Thread.currentThread();
        a.getAsync(key)
            .thenAccept(
                read -> {
                  if (Thread.currentThread() == test) {
                    return; // answered before the continuation was attached: try again
                  }
                  ranOn[0] = Thread.currentThread().getName();
                  try {
                    b.get(key);
                  } catch (RuntimeException e) {
                    fromB[0] = e;
                  }
                  fromOwn[0] = own.get(key).orElseThrow().value();
                })
            .get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
      }
      assertNotNull(ranOn[0], "a continuation ran on the network thread in 20 tries");
      assertInstanceOf(IllegalStateException.class, fromB[0], "b shares a's thread: " + ranOn[0]);
      assertArrayEquals(bytes("own"), fromOwn[0], "own's thread read its answer");

      a.close();
      assertEquals(1, SharedEventLoops.leases(threads));
      v = b.cas(key, v, bytes("b2"));
      assertArrayEquals(bytes("b2"), own.get(key).orElseThrow().value(), "b serves after a closed");
      b.close();
      assertEquals(0, SharedEventLoops.leases(threads), "the shared threads ended with b");
      own.cas(key, v, bytes("own2"));
      assertArrayEquals(bytes("own2"), own.get(key).orElseThrow().value());
      own.close();
    }
  }

  @Test
  void noLiveSeed_failsWithinTheConnectTimeout_namingTheSeeds() throws Exception {
    int deadPort;
    try (ServerSocket s = new ServerSocket(0)) {
      deadPort = s.getLocalPort();
    }
    long start = System.nanoTime();
    FrsmException e =
        assertThrows(
            FrsmException.class,
            () ->
                FrsmClient.builder()
                    .seeds("127.0.0.1:" + deadPort)
                    .clusterId("nobody")
                    .connectTimeout(Duration.ofSeconds(2))
                    .insecure() // nothing listens: no handshake to make
                    .build());
    assertTrue(e.getMessage().contains("127.0.0.1:" + deadPort), e.getMessage());
    assertTrue(System.nanoTime() - start < Duration.ofSeconds(30).toNanos());
  }

  /**
   * A CAS right after the kill may land in the window where the dead node's ranges have no leader
   * yet; a definite "not executed" is safe to retry (nothing ran), anything else is not retried.
   */
  private static Version casUntilDone(FrsmClient client, byte[] key, Version v, byte[] value) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      try {
        return client.cas(key, v, value);
      } catch (NotExecutedException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
      }
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
