package io.frsm.bench.crsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.KeyExistsException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.transport.NettyLeakCheck;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The cluster end to end through its {@link FrsmClient}, over both networks. */
@ExtendWith(NettyLeakCheck.class)
class CrsmClusterTest {
  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(Network.class)
  void apiSemantics_matchFrsm(Network network) throws Exception {
    try (CrsmCluster cluster = CrsmCluster.start(dir, CrsmConfig.benchmark(64), network);
        FrsmClient client = cluster.client()) {
      byte[] key = "answer".getBytes(StandardCharsets.US_ASCII);
      assertEquals(Optional.empty(), client.get(key));
      Version v0 = client.create(key, new byte[] {1});
      assertThrows(KeyExistsException.class, () -> client.create(key, new byte[] {2}));
      Version v1 = client.cas(key, v0, new byte[] {3});
      assertEquals(v0.next(), v1);
      CasMismatchException mismatch =
          assertThrows(CasMismatchException.class, () -> client.cas(key, v0, new byte[] {4}));
      assertEquals(new Versioned(new byte[] {3}, v1), mismatch.current().orElseThrow());
      Versioned fenced = client.fence(key).orElseThrow();
      assertEquals(v1.next(), fenced.version());
      client.delete(key, fenced.version());
      assertEquals(Optional.empty(), client.get(key));
      Version again = client.create(key, new byte[] {5});
      assertTrue(again.epoch() > v0.epoch(), again + " after " + v0);
    }
  }

  /**
   * Linearizability sanity (paper appendix C in miniature): threads CAS-increment a few counters
   * through read-modify-write; every counter ends equal to the increments that succeeded.
   */
  @ParameterizedTest
  @EnumSource(Network.class)
  void concurrentCasIncrements_loseNothingAndFormBatches(Network network) throws Exception {
    int counters = 4;
    int threads = 8;
    int incrementsPerThread = 150;
    AtomicLongArray succeeded = new AtomicLongArray(counters);
    try (CrsmCluster cluster = CrsmCluster.start(dir, CrsmConfig.benchmark(64), network)) {
      FrsmClient client = cluster.client();
      for (int c = 0; c < counters; c++) {
        client.create(counterKey(c), encode(0));
      }
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int first = t;
          done.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < incrementsPerThread; i++) {
                      int c = (first + i) % counters;
                      Versioned current = client.get(counterKey(c)).orElseThrow();
                      try {
                        client.cas(counterKey(c), current.version(), encode(decode(current) + 1));
                        succeeded.incrementAndGet(c);
                      } catch (CasMismatchException lostRace) {
                        // Another thread incremented first: nothing happened.
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
      }
      long total = 0;
      for (int c = 0; c < counters; c++) {
        Versioned v = client.get(counterKey(c)).orElseThrow();
        assertEquals(succeeded.get(c), decode(v), "counter " + c);
        assertEquals(succeeded.get(c), v.version().timestamp(), "one version per increment");
        total += succeeded.get(c);
      }
      assertTrue(total > 0, "no increment succeeded");
      BatchMetrics m = cluster.metrics();
      assertTrue(
          m.slotsWithSeveralCommands() > 0,
          "no slot carried more than one command: " + m.slots() + " slots, " + m.commands());
      assertTrue(m.largestBatch() <= 64, "batch above maxBatch: " + m.largestBatch());
    }
  }

  @ParameterizedTest
  @EnumSource(Network.class)
  void everyReplicaLogsTheFirstSlotOfAShardOnDisk(Network network) throws Exception {
    try (CrsmCluster cluster = CrsmCluster.start(dir, CrsmConfig.benchmark(1), network)) {
      byte[] key = "durable".getBytes(StandardCharsets.US_ASCII);
      cluster.client().create(key, new byte[] {42});
      int shard = CrsmCluster.shardOf(key);
      // The create is acknowledged after a quorum synced it; the third replica may still be on it.
      int onDisk = 0;
      for (int n = 0; n < CrsmCluster.NODES; n++) {
        Cell cell = cluster.engine(n).get(Key.wrap(LogRecordCodec.slotKey(shard, 0)));
        if (cell != null) {
          List<ClientCommand> batch = LogRecordCodec.decodeBatch(cell.accepted().valueUnsafe());
          assertEquals(1, batch.size());
          assertFalse(batch.get(0).command() instanceof Command.Get);
          onDisk++;
        }
      }
      assertTrue(onDisk >= 2, "slot 0 durable on " + onDisk + " replicas");
      // The leader may win its term on the other two replicas' promises while its own is still
      // being persisted (it persists before any reply that depends on it), so wait for it.
      long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
      while (cluster.engine(shard % 3).get(Key.wrap(LogRecordCodec.promiseKey(shard))) == null) {
        assertTrue(System.nanoTime() < deadline, "the leader's promise durable within 30 s");
        java.util.concurrent.locks.LockSupport.parkNanos(100_000);
      }
    }
  }

  /**
   * The Netty cluster really listens on sockets, and a connection sending garbage is closed without
   * disturbing the nodes: operations on every shard still succeed afterwards.
   */
  @Test
  void nettyCluster_closesABadConnection_andKeepsServing() throws Exception {
    try (CrsmCluster cluster = CrsmCluster.start(dir, CrsmConfig.benchmark(64), Network.NETTY);
        FrsmClient client = cluster.client()) {
      for (int n = 0; n < CrsmCluster.NODES; n++) {
        try (Socket socket = new Socket()) {
          socket.connect(cluster.peerAddress(n), 5_000);
          socket.setSoTimeout(30_000);
          socket.getOutputStream().write(new byte[] {0, 0, 0, 3, (byte) 0xff, (byte) 0xff, 1});
          assertEquals(-1, socket.getInputStream().read(), "node " + n + " closed on garbage");
        } catch (SocketException reset) {
          // A reset is a close too.
        }
      }
      for (int i = 0; i < 48; i++) {
        byte[] key = ("after-" + i).getBytes(StandardCharsets.US_ASCII);
        Version v = client.create(key, new byte[] {(byte) i});
        assertEquals(v, client.get(key).orElseThrow().version());
      }
    }
  }

  @Test
  void inJvmCluster_hasNoSockets() throws Exception {
    try (CrsmCluster cluster = CrsmCluster.start(dir, CrsmConfig.benchmark(1), Network.IN_JVM)) {
      assertThrows(IllegalStateException.class, () -> cluster.peerAddress(0));
      assertEquals(0, cluster.droppedMessages());
    }
  }

  private static byte[] counterKey(int c) {
    return ("counter-" + c).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] encode(long n) {
    return ByteBuffer.allocate(8).putLong(n).array();
  }

  private static long decode(Versioned v) {
    return ByteBuffer.wrap(v.value()).getLong();
  }
}
