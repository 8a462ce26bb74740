package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import io.frsm.consensus.core.CoreStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nodes running several core shards (docs/PROTOCOL.md "Core shards"): every range is led and
 * written through the shard that owns it, counters incremented concurrently through every node end
 * exact, the leader's gets are leader-only, and a node crashed and restarted with its shards
 * reclaims its ranges and serves every acknowledged increment.
 */
class CoreShardsIT {
  private static final int SHARDS = 3;
  private static final int COUNTERS = 12;

  @Test
  void shardedNodes_serveEveryRange_andLoseNoIncrement_acrossACrash(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = TestCluster.withCoreThreads(dir, SHARDS)) {
      assertEquals(
          Set.of("frsm-node-1-core-0", "frsm-node-1-core-1", "frsm-node-1-core-2"),
          coreThreadsOf(1),
          "node 1 runs one core thread per shard");
      AtomicLongArray acknowledged = new AtomicLongArray(COUNTERS);
      byte[][] keys = countersIncrementedEverywhere(cluster, acknowledged);

      CoreStats stats = cluster.node(1).coreStats();
      assertTrue(stats.readsLeaderOnly() > 0, "leaders serve leader-only reads: " + stats);

      cluster.crash(1);
      incrementEverywhere(cluster, keys, acknowledged, List.of(2, 3), 5);
      FrsmNode restarted = cluster.restart(1);
      cluster.awaitNaturalLeaders();
      assertCounters(restarted, keys, acknowledged);
      incrementEverywhere(cluster, keys, acknowledged, List.of(1, 2, 3), 5);
      assertCounters(cluster.node(3), keys, acknowledged);
    }
  }

  @Test
  void shardsOnTheTransportLoop_serveEveryRange_andLoseNoIncrement_acrossACrash(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = TestCluster.withCoresOnTheTransportLoop(dir, SHARDS)) {
      assertEquals(Set.of(), coreThreadsOf(1), "the shards run on the event loop, not threads");
      AtomicLongArray acknowledged = new AtomicLongArray(COUNTERS);
      byte[][] keys = countersIncrementedEverywhere(cluster, acknowledged);
      assertTrue(cluster.node(1).coreStats().readsLeaderOnly() > 0, "ticks publish the stats");

      // Through the thin client too: its requests arrive on the loop the cores run on.
      FrsmClient thin = cluster.thinClient();
      for (byte[] key : keys) {
        Versioned v = thin.get(key).orElseThrow();
        thin.cas(key, v.version(), encode(decode(v.value()) + 1));
      }
      for (int k = 0; k < COUNTERS; k++) {
        acknowledged.incrementAndGet(k);
      }

      cluster.crash(1);
      incrementEverywhere(cluster, keys, acknowledged, List.of(2, 3), 5);
      FrsmNode restarted = cluster.restart(1);
      cluster.awaitNaturalLeaders();
      assertCounters(restarted, keys, acknowledged);
      assertEquals(Set.of(), coreThreadsOf(1));
    }
  }

  @Test
  void onTheTransportLoop_aFatalErrorInOneShard_stopsEveryShard(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = TestCluster.withCoresOnTheTransportLoop(dir, SHARDS)) {
      FrsmNode node = cluster.node(1);
      // Find the key first: once its engine is dead, the node may stop leading at any moment.
      byte[] key = keyLedBy(cluster, 1);
      node.engine().kill();
      try (FrsmClient client = node.client()) {
        try {
          client.create(key, encode(0));
        } catch (io.frsm.api.FrsmException expected) {
          // not executed, or an unknown outcome: the shard failed under it
        }
      }
      Await.until(() -> !node.serving(), Duration.ofSeconds(30), "node 1 to stop serving");
      // A shard stops serving first and answers its open operations after, on its loop (there is
      // no core thread whose end the test could wait for, as in the thread test below).
      Await.until(
          () -> node.openOperations() == 0,
          Duration.ofSeconds(30),
          "every operation open on node 1's stopped shards to be answered");
      Await.until(() -> node.rangesLed() == 0, Duration.ofSeconds(30), "node 1 to lead nothing");
    }
  }

  private static byte[] keyLedBy(TestCluster cluster, int nodeId) {
    for (int i = 0; i < 100_000; i++) {
      byte[] candidate = ("fatal/" + i).getBytes(UTF_8);
      if (cluster.holdersOf(cluster.rangeOf(candidate)).equals(List.of(nodeId))) {
        return candidate;
      }
    }
    throw new AssertionError("node " + nodeId + " leads none of 100,000 keys' ranges");
  }

  @Test
  void moreCoreThreadsThanRanges_runOneShardPerRange(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withCoreThreads(dir, 64)) {
      int ranges = cluster.node(1).ring().rangeCount();
      assertTrue(ranges < 64, "the test needs fewer ranges than core threads: " + ranges);
      assertEquals(ranges, coreThreadsOf(1).size(), "one core thread per range, no idle ones");
      try (FrsmClient client = cluster.node(2).client()) {
        byte[] key = "many-shards".getBytes(UTF_8);
        client.create(key, encode(1));
        assertEquals(1, decode(client.get(key).orElseThrow().value()));
      }
    }
  }

  @Test
  void aFatalErrorInOneShard_stopsEveryShardOfTheNode(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = TestCluster.withCoreThreads(dir, SHARDS)) {
      FrsmNode node = cluster.node(1);
      byte[] key = null;
      for (int i = 0; key == null; i++) {
        byte[] candidate = ("fatal/" + i).getBytes(UTF_8);
        int range = cluster.rangeOf(candidate);
        if (range % SHARDS == 1 && cluster.holdersOf(range).equals(List.of(1))) {
          key = candidate;
        }
      }
      // Every later persist or read of node 1's engine fails: the shard that meets it first can
      // no longer vouch for its durable state and stops; the other shards must stop with it.
      node.engine().kill();
      try (FrsmClient client = node.client()) {
        try {
          client.create(key, encode(0));
        } catch (io.frsm.api.FrsmException expected) {
          // not executed, or an unknown outcome: the shard failed under it
        }
      }
      Await.until(() -> !node.serving(), Duration.ofSeconds(30), "node 1 to stop serving");
      Await.until(
          () -> coreThreadsOf(1).isEmpty(),
          Duration.ofSeconds(30),
          "every core thread of node 1 to end (left: " + coreThreadsOf(1) + ")");
      assertEquals(0, node.openOperations(), "no operation is left hanging on a stopped shard");
      // It leaves its ranges, and the other nodes take them over and serve its keys.
      Await.until(() -> node.rangesLed() == 0, Duration.ofSeconds(30), "node 1 to lead nothing");
      byte[] orphan = key;
      try (FrsmClient other = cluster.node(2).client()) {
        Await.until(
            () -> {
              try {
                other.create(orphan, encode(7));
                return true;
              } catch (io.frsm.api.KeyExistsException created) {
                return true; // an earlier attempt took effect
              } catch (io.frsm.api.FrsmException notYet) {
                return false; // its range is still changing hands
              }
            },
            Duration.ofSeconds(60),
            "a key of node 1's failed shard to be writable through node 2");
      }
    }
  }

  /**
   * Creates the counters (keys over every shard and leader), has every node increment each 15 times
   * at once, and checks them through node 2.
   */
  private static byte[][] countersIncrementedEverywhere(
      TestCluster cluster, AtomicLongArray acknowledged) throws Exception {
    byte[][] keys = keysOverEveryShard(cluster);
    try (FrsmClient setup = cluster.node(1).client()) {
      for (byte[] key : keys) {
        setup.create(key, encode(0));
      }
    }
    incrementEverywhere(cluster, keys, acknowledged, List.of(1, 2, 3), 15);
    assertCounters(cluster.node(2), keys, acknowledged);
    return keys;
  }

  /** COUNTERS keys, covering every shard and every leader (first come, per pair). */
  private static byte[][] keysOverEveryShard(TestCluster cluster) {
    List<byte[]> picked = new ArrayList<>();
    Set<List<Integer>> pairs = new HashSet<>();
    Set<Integer> shards = new HashSet<>();
    Set<Integer> leaders = new HashSet<>();
    for (int i = 0; i < 100_000 && picked.size() < COUNTERS; i++) {
      byte[] key = ("sharded/" + i).getBytes(UTF_8);
      int range = cluster.rangeOf(key);
      int leader = cluster.holdersOf(range).get(0);
      // A new (shard, leader) pair first, so that every shard of every node coordinates some.
      if (pairs.add(List.of(range % SHARDS, leader)) || i > 10_000) {
        picked.add(key);
        shards.add(range % SHARDS);
        leaders.add(leader);
      }
    }
    assertEquals(COUNTERS, picked.size());
    assertEquals(Set.of(0, 1, 2), shards, "keys in every shard");
    assertEquals(Set.of(1, 2, 3), leaders, "keys led by every node");
    return picked.toArray(byte[][]::new);
  }

  /** Each node in {@code via} increments every counter {@code rounds} times, all at once. */
  private static void incrementEverywhere(
      TestCluster cluster,
      byte[][] keys,
      AtomicLongArray acknowledged,
      List<Integer> via,
      int rounds)
      throws Exception {
    List<CompletableFuture<Void>> workers = new ArrayList<>();
    for (int nodeId : via) {
      FrsmNode node = cluster.node(nodeId);
      workers.add(
          CompletableFuture.runAsync(
              () -> {
                try (FrsmClient client = node.client()) {
                  for (int r = 0; r < rounds; r++) {
                    for (int k = 0; k < COUNTERS; k++) {
                      increment(client, keys[k]);
                      acknowledged.incrementAndGet(k);
                    }
                  }
                }
              }));
    }
    CompletableFuture.allOf(workers.toArray(CompletableFuture[]::new)).join();
  }

  /**
   * One increment, retried on a lost race. Each attempt writes a value no other attempt writes
   * (count and a unique tag), so when its outcome is unknown the fence tells whether it took
   * effect.
   */
  private static void increment(FrsmClient client, byte[] key) {
    while (true) {
      Versioned current = client.get(key).orElseThrow();
      byte[] next = encode(decode(current.value()) + 1);
      try {
        client.cas(key, current.version(), next);
        return;
      } catch (CasMismatchException lost) {
        // another node's increment won: read again
      } catch (OutcomeUnknownException unknown) {
        Optional<Versioned> settled = client.fence(key);
        if (settled.isPresent() && Arrays.equals(settled.get().value(), next)) {
          return;
        }
      }
    }
  }

  private static void assertCounters(FrsmNode node, byte[][] keys, AtomicLongArray acknowledged) {
    try (FrsmClient client = node.client()) {
      for (int k = 0; k < COUNTERS; k++) {
        Versioned v = client.get(keys[k]).orElseThrow();
        assertEquals(acknowledged.get(k), decode(v.value()), "counter " + k);
      }
    }
  }

  private static Set<String> coreThreadsOf(int nodeId) {
    Set<String> names = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.getName().startsWith("frsm-node-" + nodeId + "-core")) {
        names.add(t.getName());
      }
    }
    return names;
  }

  private static final AtomicLong ATTEMPTS = new AtomicLong();

  /** {@code count/tag}: the tag makes every attempt's value unique. */
  private static byte[] encode(long count) {
    return (count + "/" + ATTEMPTS.incrementAndGet()).getBytes(UTF_8);
  }

  private static long decode(byte[] value) {
    String s = new String(value, UTF_8);
    return Long.parseLong(s.substring(0, s.indexOf('/')));
  }
}
