package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.InvalidRequestException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.transport.BadFrames;
import io.frsm.transport.BadFrames.BadFrame;
import io.frsm.transport.CoreOperations;
import io.frsm.transport.TransportWarnings;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import java.util.function.IntFunction;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input against a running three-node cluster (docs/formats/wire.md "Header rules"): malformed,
 * truncated and oversized frames and frames of another cluster or protocol version, each from a raw
 * socket to a node's client port and to its peer port. Each connection is closed and logged, the
 * nodes keep serving (through themselves and their peers), and nothing changes: every replica's
 * cells of the written keys (values, versions, promises, write times), no new key, and the nodes'
 * operation and peer-message counters.
 *
 * <p>The bodies of the bad frames are chosen so that any of them reaching a node would show: a
 * client create of a fresh key and a CAS of a written key, a peer commit of a fresh key and a
 * commit that moves a written key to a newer version, sent under a real peer's node id (so the
 * node's per-peer counters would count it).
 *
 * <p>And the probe that once stopped a node with a single sound frame (docs/OPERATIONS.md "Failure
 * policy"): an invocation time near {@code Long.MAX_VALUE}, a CAS expecting a version whose {@code
 * timestamp + 1} overflows, and a peer planting a value at the top of the version range. Each is
 * refused or ends its own operation, and every node keeps serving every key.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodeBadInputIT {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  /** How long the counters must stay put before a snapshot counts as settled. */
  private static final Duration QUIET = Duration.ofMillis(500);

  private static final byte[] VICTIM = bytes("bad-input/never-written");
  private static final byte[] EVIL = bytes("evil");

  private TestCluster cluster;
  private final Map<String, Versioned> written = new TreeMap<>();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    // The attacks must not move a single peer message: with step-down on, the quorum watch's
    // probes of idle peers would move them all the time, so the cluster runs without it.
    cluster = TestCluster.withoutStepDown(dir);
    FrsmClient client = cluster.thinClient();
    for (int i = 0; i < 8; i++) {
      String key = "bad-input/key-" + i;
      Version v = client.create(bytes(key), bytes("value " + i));
      if (i % 2 == 1) {
        v = client.cas(bytes(key), v, bytes("value " + i + " again"));
      }
      written.put(key, client.get(bytes(key)).orElseThrow());
    }
  }

  @AfterAll
  void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void badFrames_onEveryClientPort_closeTheirConnections_andChangeNothing() throws Exception {
    Versioned first = written.values().iterator().next();
    byte[] firstKey = bytes(written.keySet().iterator().next());
    List<OperationRequest> bodies =
        List.of(
            new OperationRequest(
                CoreOperations.toClient(new Operation.Create(Key.of(VICTIM), EVIL)), 0),
            new OperationRequest(
                CoreOperations.toClient(new Operation.Cas(Key.of(firstKey), first.version(), EVIL)),
                0));
    List<BadFrame> frames = new ArrayList<>();
    for (OperationRequest body : bodies) {
      frames.addAll(BadFrames.allClient(TestCluster.CLUSTER_ID, body));
    }
    SSLContext admin = TlsSockets.context(cluster.tls().admin(), cluster.tls().admin());
    attackAndCheckNothingChanged(
        "client port", FrsmNode::clientAddress, id -> frames, (id, bad) -> admin);
  }

  @Test
  void badFrames_onEveryPeerPort_closeTheirConnections_andChangeNothing() throws Exception {
    // Sent by a member with its own certificate: the frames are bad, not the identity.
    attackAndCheckNothingChanged(
        "peer port",
        FrsmNode::peerAddress,
        this::peerFramesFor,
        (id, bad) -> peerContext(senderFor(id)));
  }

  /** Bad frames for node {@code target}'s peer port, posing as another member of the cluster. */
  private List<BadFrame> peerFramesFor(int target) {
    int sender = senderFor(target);
    long round = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) * 2;
    Ballot ballot = new Ballot(round, sender, 1);
    Versioned first = written.values().iterator().next();
    Key firstKey = Key.of(bytes(written.keySet().iterator().next()));
    List<Message> bodies =
        List.of(
            new Message.Commit(Key.of(VICTIM), AcceptedValue.live(round, 0, ballot, EVIL, true)),
            new Message.Commit(
                firstKey,
                AcceptedValue.live(
                    first.version().epoch(),
                    first.version().timestamp() + 100,
                    ballot,
                    EVIL,
                    true)));
    List<BadFrame> frames = new ArrayList<>();
    for (Message body : bodies) {
      frames.addAll(BadFrames.allPeer(TestCluster.CLUSTER_ID, sender, body));
    }
    return frames;
  }

  /** The member that bad peer frames to node {@code target} come from. */
  private int senderFor(int target) {
    return target % cluster.size() + 1;
  }

  /** TLS as member {@code nodeId}, with its own certificate. */
  private SSLContext peerContext(int nodeId) {
    try {
      return TlsSockets.context(cluster.tls().node(nodeId), cluster.tls().node(nodeId));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * Sends every bad frame to {@code port} of every node, over TLS as {@code tlsFor} says (the
   * frames are bad, the identity is sound), then checks nothing changed.
   */
  private void attackAndCheckNothingChanged(
      String port,
      Function<FrsmNode, InetSocketAddress> address,
      IntFunction<List<BadFrame>> framesForNode,
      java.util.function.BiFunction<Integer, BadFrame, SSLContext> tlsFor)
      throws IOException {
    Map<String, Object> before = settledStates();
    try (TransportWarnings warnings = TransportWarnings.capture()) {
      for (int id = 1; id <= cluster.size(); id++) {
        InetSocketAddress target = address.apply(cluster.node(id));
        for (BadFrame bad : framesForNode.apply(id)) {
          int from = TlsSockets.sendExpectingClose(tlsFor.apply(id, bad), target, bad, DEADLINE);
          warnings.await(
              w -> w.contains(":" + from) && w.contains(bad.logged()),
              DEADLINE,
              "from node "
                  + id
                  + "'s "
                  + port
                  + " about '"
                  + bad
                  + "' (sent from port "
                  + from
                  + ")");
        }
      }
    }
    // Anything a bad frame had set off would reach the cores and counters within a tick or two.
    assertEquals(
        List.of(), changes(before, settledStates()), "what the bad input changed on the nodes");
    everyNodeStillServes();
  }

  // ---- the probe that stopped a node with one frame (docs/OPERATIONS.md "Failure policy")

  /** A raw client-protocol call to node {@code id}: what any program on the network can send. */
  private OperationResponse rawCall(int id, Operation op, long invokedAtMicros) throws Exception {
    TransportConfig config = TransportConfig.builder(TestCluster.CLUSTER_ID).build();
    TlsFiles admin = cluster.tls().admin();
    MutualTls tls =
        new MutualTls(
            TlsContexts.load(admin, SslProvider.JDK, Duration.ofMinutes(1)),
            TestCluster.CLUSTER_ID,
            DEADLINE);
    try (TransportEventLoops loops = TransportEventLoops.create(1, true);
        ClientProtocolClient client =
            ClientProtocolClient.connect(cluster.node(id).clientAddress(), config, loops, tls)) {
      return client
          .call(new OperationRequest(CoreOperations.toClient(op), invokedAtMicros), DEADLINE)
          .get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private void assertInvalid(OperationResponse response, String field) {
    OperationResponse.Invalid invalid = assertInstanceOf(OperationResponse.Invalid.class, response);
    assertTrue(invalid.reason().contains(field), invalid.reason() + " names " + field);
  }

  private void everyNodeServing() {
    for (int id = 1; id <= cluster.size(); id++) {
      assertTrue(cluster.node(id).serving(), "node " + id + " serves (/health 200)");
    }
  }

  @Test
  void extremeInvocationTime_doesNotStopTheNode() throws Exception {
    Key key = Key.of(bytes(written.keySet().iterator().next()));
    long now = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
    for (int id = 1; id <= cluster.size(); id++) {
      for (long tau :
          List.of(
              Long.MAX_VALUE, // the probe: τ + T overflowed in the core
              InputBounds.MAX_NUMBER,
              now + TimeUnit.DAYS.toMicros(1),
              now - TimeUnit.DAYS.toMicros(1),
              1L)) {
        assertInvalid(rawCall(id, new Operation.Fence(key), tau), "invoked_at_micros");
        assertInvalid(rawCall(id, new Operation.Create(Key.of(VICTIM), EVIL), tau), "invoked_at");
      }
    }
    everyNodeServing();
    everyNodeStillServes();
  }

  @Test
  void versionNearTheMaximum_isRefused_andTheKeyStaysUsable() throws Exception {
    byte[] key = bytes("bad-input/near-the-maximum");
    FrsmClient thin = cluster.thinClient();
    try {
      Version v = thin.create(key, bytes("first"));
      for (int id = 1; id <= cluster.size(); id++) {
        // The probe: a CAS expecting timestamp Long.MAX_VALUE - 1 made timestamp + 1 overflow.
        for (Version planted :
            List.of(
                new Version(v.epoch(), Long.MAX_VALUE - 1),
                new Version(v.epoch(), InputBounds.MAX_NUMBER),
                new Version(InputBounds.MAX_NUMBER + 1, 0))) {
          assertInvalid(rawCall(id, new Operation.Cas(Key.of(key), planted, EVIL), 0), "expected");
          assertInvalid(rawCall(id, new Operation.Delete(Key.of(key), planted), 0), "expected");
        }
      }
      assertThrows(
          InvalidRequestException.class,
          () -> thin.cas(key, new Version(v.epoch(), Long.MAX_VALUE - 1), EVIL));
      // The key goes on from its real version, through every node in turn.
      Version next = v;
      for (int id = 1; id <= cluster.size(); id++) {
        try (FrsmClient embedded = cluster.node(id).client()) {
          next = embedded.cas(key, next, bytes("through node " + id));
        }
      }
      assertEquals(next, thin.get(key).orElseThrow().version());
    } finally {
      thin.close();
    }
    everyNodeServing();
    everyNodeStillServes();
  }

  /**
   * A peer that plants a value at the very top of the version range, at every replica: a fence
   * would have to write timestamp + 1 above it, so it ends without a round (not executed) instead
   * of overflowing, and the key stays readable; every node serves on.
   */
  @Test
  void valuePlantedAtTheMaximumByAPeer_endsOperationsOnThatKeyOnly() throws Exception {
    byte[] key = bytes("bad-input/planted-at-the-maximum");
    long round = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis()) * 2;
    for (int target = 1; target <= cluster.size(); target++) {
      int sender = target % cluster.size() + 1;
      Message commit =
          new Message.Commit(
              Key.of(key),
              AcceptedValue.live(
                  7, InputBounds.MAX_NUMBER, new Ballot(round, sender, 1), EVIL, true));
      sendPeerFrame(cluster.node(target).peerAddress(), peerContext(sender), sender, commit);
    }
    FrsmClient thin = cluster.thinClient();
    try {
      Await.until(
          () -> {
            try {
              return thin.get(key).isPresent();
            } catch (FrsmException notYet) {
              return false;
            }
          },
          DEADLINE,
          "the planted value to be readable");
      assertEquals(new Version(7, InputBounds.MAX_NUMBER), thin.get(key).orElseThrow().version());
      assertThrows(FrsmException.class, () -> thin.fence(key));
      assertThrows(
          InvalidRequestException.class,
          () -> thin.cas(key, new Version(7, InputBounds.MAX_NUMBER), EVIL));
    } finally {
      thin.close();
    }
    everyNodeServing();
    everyNodeStillServes();
  }

  /**
   * Writes one sound peer frame from a raw TLS socket holding node {@code sender}'s certificate (a
   * member gone rogue), then closes it.
   */
  private static void sendPeerFrame(
      InetSocketAddress target, SSLContext tls, int sender, Message message) throws IOException {
    TlsSockets.send(
        tls, target, BadFrames.peerFrame(TestCluster.CLUSTER_ID, sender, message), DEADLINE);
  }

  /** Reads through every node and a thin client, and writes through every node. */
  private void everyNodeStillServes() {
    List<FrsmClient> clients = new ArrayList<>();
    for (int id = 1; id <= cluster.size(); id++) {
      clients.add(cluster.node(id).client());
    }
    clients.add(cluster.thinClient());
    try {
      for (FrsmClient client : clients) {
        for (Map.Entry<String, Versioned> e : written.entrySet()) {
          Versioned got = client.get(bytes(e.getKey())).orElseThrow();
          assertEquals(e.getValue().version(), got.version(), e.getKey());
          assertArrayEquals(e.getValue().value(), got.value(), e.getKey());
        }
        assertEquals(Optional.empty(), client.get(VICTIM), "the bad frames' key never appeared");
      }
      for (int id = 1; id <= cluster.size(); id++) {
        byte[] key = bytes("bad-input/after/" + System.nanoTime() + "/" + id);
        Version v = clients.get(id - 1).create(key, bytes("written through node " + id));
        FrsmClient other = clients.get(id % cluster.size());
        assertEquals(v, other.get(key).orElseThrow().version(), "read through another node");
      }
    } finally {
      clients.forEach(FrsmClient::close);
    }
  }

  /**
   * What bad input must not change, per node: its core's counters, its per-peer message and
   * operation meters, and its own replica's cells of the written keys and of the bad frames' key.
   * One flat map, so a failure names just what moved.
   */
  private Map<String, Object> states() {
    Map<String, Object> out = new TreeMap<>();
    for (int id = 1; id <= cluster.size(); id++) {
      FrsmNode node = cluster.node(id);
      String prefix = "node " + id + " ";
      out.put(prefix + "core", node.coreStats());
      MeterRegistry registry = node.meterRegistry();
      for (String name :
          List.of("frsm.peer.messages", "frsm.operations", "frsm.operations.routed")) {
        for (Meter meter : registry.find(name).meters()) {
          double count = 0;
          for (var measurement : meter.measure()) {
            if (measurement.getStatistic().name().equals("COUNT")) {
              count += measurement.getValue();
            }
          }
          out.put(prefix + meter.getId().getName() + meter.getId().getTags(), count);
        }
      }
      try {
        for (String key : written.keySet()) {
          out.put(prefix + key, Optional.ofNullable(node.engine().get(Key.of(bytes(key)))));
        }
        out.put(prefix + "bad frames' key", Optional.ofNullable(node.engine().get(Key.of(VICTIM))));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }

  private static List<String> changes(Map<String, Object> before, Map<String, Object> after) {
    List<String> out = new ArrayList<>();
    for (String what : new java.util.TreeSet<>(union(before.keySet(), after.keySet()))) {
      Object was = before.get(what);
      Object is = after.get(what);
      if (!java.util.Objects.equals(was, is)) {
        out.add(what + ": " + was + " -> " + is);
      }
    }
    return out;
  }

  private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
    java.util.Set<String> all = new java.util.HashSet<>(a);
    all.addAll(b);
    return all;
  }

  /**
   * The nodes' states once nothing moved for {@link #QUIET}: commits of earlier writes, a leader's
   * range scan and meter snapshots (one per core tick) land first.
   */
  private Map<String, Object> settledStates() {
    long end = System.nanoTime() + DEADLINE.toNanos();
    Map<String, Object> last = states();
    List<String> lastMove = List.of();
    long unchangedSince = System.nanoTime();
    while (System.nanoTime() - unchangedSince < QUIET.toNanos()) {
      if (System.nanoTime() - end >= 0) {
        fail("the nodes did not settle within " + DEADLINE + "; the last move: " + lastMove);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      Map<String, Object> now = states();
      if (!now.equals(last)) {
        lastMove = changes(last, now);
        last = now;
        unchangedSince = System.nanoTime();
      }
    }
    return last;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }
}
