package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.KeyExistsException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.consensus.core.CoreStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's meters move with real traffic on three real nodes: operations by type and outcome
 * (unknown outcomes included), warm and cold CAS, reads by mode with their latencies, per-peer
 * messages, and the core stats the demo sums.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeMetricsIT {
  private static final int CASES = 10;
  private static final List<String> CORE_READ_MODES =
      List.of("leader_only", "quorum", "mutating_quorum");

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
  @Order(1) // counts from a quiet node 1; the test below adds operations of its own
  void operationsThroughOneNode_moveItsMeters() {
    FrsmNode node = cluster.node(1);
    MeterRegistry registry = node.meterRegistry();
    // The cluster's start probed every range with a create through a thin client (and a get if
    // one did not finish): count from here.
    double createsBefore = timer(registry, "create", "ok").count();
    double getsBefore = timer(registry, "get", "ok").count();
    long coreGetsBefore = node.coreStats().gets();
    double readsBefore = allReads(registry);
    try (FrsmClient client = node.client()) {
      byte[] key = keyLedBy(1, "metrics/k");
      Version v = client.create(key, "0".getBytes(UTF_8));
      for (int i = 1; i <= CASES; i++) {
        v = client.cas(key, v, Integer.toString(i).getBytes(UTF_8));
      }
      Version stale = v;
      client.cas(key, v, "x".getBytes(UTF_8));
      // Through a fresh session: the first client may already have seen the newer version, and
      // would then answer the stale CAS with a read instead of sending it (KeySessions).
      try (FrsmClient other = node.client()) {
        assertThrows(CasMismatchException.class, () -> other.cas(key, stale, "y".getBytes(UTF_8)));
      }
      assertThrows(KeyExistsException.class, () -> client.create(key, "z".getBytes(UTF_8)));
      client.get(key);
      client.get(key);
      client.fence(key);
      client.delete(key, client.get(key).orElseThrow().version());
    }

    assertEquals(CASES + 1, timer(registry, "cas", "ok").count());
    assertEquals(1, timer(registry, "cas", "mismatch").count());
    assertEquals(createsBefore + 1, timer(registry, "create", "ok").count());
    assertEquals(1, timer(registry, "create", "exists").count());
    assertEquals(getsBefore + 3, timer(registry, "get", "ok").count());
    assertEquals(1, timer(registry, "fence", "ok").count());
    assertEquals(1, timer(registry, "delete", "ok").count());
    assertTrue(timer(registry, "cas", "ok").totalTime(TimeUnit.NANOSECONDS) > 0);

    // The core counts an operation when it ends on its loop, which may be after the answer: wait.
    awaitTrue(
        () ->
            node.coreStats().cases() == CASES + 2 && node.coreStats().gets() == coreGetsBefore + 3,
        "core stats published");
    double warm = rounds(registry, "warm");
    double cold = rounds(registry, "cold");
    // The stale CAS fails from the leader's cell with no round when the cell is authoritative by
    // then (its last commit to itself durable), else through a cold round: either is counted once.
    double localMismatches =
        registry.get("frsm.cas.mismatches").tag("served", "leader_only").functionCounter().count();
    assertTrue(localMismatches <= 1, "leader-only mismatches " + localMismatches);
    assertTrue(
        warm + cold + localMismatches >= CASES + 2,
        "every CAS counted warm, cold or leader-only: "
            + warm
            + "/"
            + cold
            + "/"
            + localMismatches);
    // One node coordinates a key nobody else touches: after the first CAS every success is warm.
    assertTrue(warm >= CASES, "warm CAS rounds " + warm);
    assertEquals(readsBefore + 3, allReads(registry));

    CoreStats stats = node.coreStats();
    assertEquals(warm, stats.casWarm());
    assertEquals(cold, stats.casCold());
    assertEquals(1, stats.mismatches());
    assertEquals(localMismatches, stats.mismatchesLeaderOnly());
    assertEquals(1, stats.keyExists());

    for (int peer : new int[] {2, 3}) {
      assertTrue(peerMessages(registry, peer, "sent") > 0, "messages sent to node " + peer);
      assertTrue(peerMessages(registry, peer, "received") > 0, "messages from node " + peer);
    }
    assertTrue(registry.get("frsm.core.queue.depth").gauge().value() >= 0);
    assertTrue(registry.get("frsm.core.queue.depth.max").gauge().value() >= 0);

    // Every served get is timed under the mode the core counted it in (the probes of the
    // cluster's start included); both are published by now (the core stats caught up above).
    for (String mode : CORE_READ_MODES) {
      assertEquals(reads(registry, mode), readLatency(registry, mode).count(), "mode " + mode);
    }
    assertTrue(
        readLatency(registry, "quorum").count() + readLatency(registry, "leader_only").count() >= 3,
        "the three gets above");
    assertEquals(0, readLatency(registry, "forwarded").count(), "no get left node 1");
  }

  @Test
  @Order(2)
  void leadershipMeters_countLedRanges_renewals_forwardsAndLeaderOnlyReads() {
    FrsmNode node = cluster.node(1);
    MeterRegistry registry = node.meterRegistry();
    assertTrue(node.rangesLed() > 0, "node 1 is a natural leader of some ranges");
    assertEquals(node.rangesLed(), registry.get("frsm.ranges.led").gauge().value());
    awaitTrue(
        () -> registry.get("frsm.lease.renewals").functionCounter().count() >= node.rangesLed(),
        "every led range renewed at least once");

    // A key node 2 leads: node 1's embedded client forwards it there.
    double forwardedBefore = routed(registry, "forwarded");
    byte[] elsewhere = keyLedBy(2, "metrics/forwarded");
    try (FrsmClient client = node.client()) {
      client.create(elsewhere, "f".getBytes(UTF_8));
      assertEquals(forwardedBefore + 1, routed(registry, "forwarded"));
      // A get of it is forwarded too, and timed here as such (the leader times it under its mode).
      client.get(elsewhere);
      assertEquals(forwardedBefore + 2, routed(registry, "forwarded"));
      Timer forwardedGets = readLatency(registry, "forwarded");
      assertEquals(1, forwardedGets.count());
      assertTrue(forwardedGets.totalTime(TimeUnit.NANOSECONDS) > 0);

      // Steady state: once the leader scanned its range, its gets are answered from its own store.
      byte[] own = keyLedBy(1, "metrics/leader-only");
      client.create(own, "l".getBytes(UTF_8));
      awaitTrue(
          () -> {
            client.get(own);
            return reads(registry, "leader_only") > 0;
          },
          "a leader-only read");
      awaitTrue(
          () -> readLatency(registry, "leader_only").count() == reads(registry, "leader_only"),
          "leader-only reads timed as counted");
      assertTrue(readLatency(registry, "leader_only").count() > 0);
    }
  }

  @Test
  @Order(2)
  void aCasQueuedBehindOneThatReplacesItsVersion_isAnsweredByARead_andCounted() throws Exception {
    FrsmNode node = cluster.node(1);
    MeterRegistry registry = node.meterRegistry();
    double unsentBefore = registry.get("frsm.client.cas.unsent").functionCounter().count();
    byte[] key = keyLedBy(1, "metrics/unsent");
    try (FrsmClient client = node.client()) {
      Version v = client.create(key, "0".getBytes(UTF_8));
      // Issued together: the second waits behind the first, which moves the key past v.
      var first = client.casAsync(key, v, "1".getBytes(UTF_8));
      var second = client.casAsync(key, v, "2".getBytes(UTF_8));
      Version written = first.get(30, TimeUnit.SECONDS);
      var e = assertThrows(java.util.concurrent.ExecutionException.class, second::get);
      CasMismatchException mismatch = assertInstanceOf(CasMismatchException.class, e.getCause());
      assertEquals(written, mismatch.current().orElseThrow().version());
    }
    assertEquals(
        unsentBefore + 1, registry.get("frsm.client.cas.unsent").functionCounter().count());
    // Registered beside it (moves only when a read races a write: KeySessionsTest shows when).
    assertNotNull(registry.get("frsm.client.reads.rerun").functionCounter());
  }

  @Test
  @Order(3) // last: it crashes nodes 2 and 3
  void aCasWhoseAcceptsGoUnanswered_endsUnknown_andIsCountedAsSuch() {
    FrsmNode node = cluster.node(1);
    MeterRegistry registry = node.meterRegistry();
    long unknownBefore = node.coreStats().unknownOutcomes();
    try (FrsmClient client = node.client()) {
      byte[] key = keyLedBy(1, "metrics/unknown");
      Version v = client.create(key, "0".getBytes(UTF_8));
      // One node coordinates the key and the CAS succeeded: the next CAS is warm, so its first
      // message is already an accept carrying its value.
      Version warm = client.cas(key, v, "1".getBytes(UTF_8));
      cluster.crash(2);
      cluster.crash(3);
      // No accept can reach a quorum now: past T the value was proposed but nothing says whether
      // it was chosen.
      assertThrows(OutcomeUnknownException.class, () -> client.cas(key, warm, "2".getBytes(UTF_8)));
    }
    assertEquals(1, timer(registry, "cas", "unknown").count());
    awaitTrue(
        () -> node.coreStats().unknownOutcomes() == unknownBefore + 1,
        "the unknown outcome in the core's stats");
  }

  private byte[] keyLedBy(int nodeId, String prefix) {
    for (int i = 0; ; i++) {
      byte[] key = (prefix + i).getBytes(UTF_8);
      if (cluster.holdersOf(cluster.rangeOf(key)).equals(List.of(nodeId))) {
        return key;
      }
    }
  }

  private static Timer readLatency(MeterRegistry registry, String mode) {
    return registry.get("frsm.reads.latency").tag("mode", mode).timer();
  }

  private static double routed(MeterRegistry registry, String how) {
    return registry.get("frsm.operations.routed").tag("how", how).counter().count();
  }

  private static Timer timer(MeterRegistry registry, String type, String outcome) {
    return registry.get("frsm.operations").tag("type", type).tag("outcome", outcome).timer();
  }

  private static double rounds(MeterRegistry registry, String mode) {
    return registry.get("frsm.cas.rounds").tag("mode", mode).functionCounter().count();
  }

  private static double allReads(MeterRegistry registry) {
    return reads(registry, "leader_only")
        + reads(registry, "quorum")
        + reads(registry, "mutating_quorum");
  }

  private static double reads(MeterRegistry registry, String mode) {
    return registry.get("frsm.reads").tag("mode", mode).functionCounter().count();
  }

  private static double peerMessages(MeterRegistry registry, int peer, String direction) {
    FunctionCounter c =
        registry
            .get("frsm.peer.messages")
            .tag("peer", Integer.toString(peer))
            .tag("direction", direction)
            .functionCounter();
    return c.count();
  }

  private static void awaitTrue(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
