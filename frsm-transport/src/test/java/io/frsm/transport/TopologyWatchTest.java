package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.proto.Topology;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TopologyMessages;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.WireDecodeException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The topology watch of the client protocol (docs/formats/wire.md "Topology"): a client's control
 * connection hears the node's view at once and after every change, hears when the watch ends, and
 * refuses a forged view whole.
 */
class TopologyWatchTest {
  private static final Duration LONG = Duration.ofSeconds(10);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  private final TransportConfig config = TransportConfig.builder(CLUSTER).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    loops.close();
  }

  private static TopologySnapshot view(long sequence, int leader) {
    return new TopologySnapshot(
        3,
        sequence,
        List.of(
            new TopologySnapshot.Member(1, "127.0.0.1", 7501, true),
            new TopologySnapshot.Member(2, "node-b", 7502, false)),
        List.of(
            new TopologySnapshot.Range(-5, List.of(1, 2), leader),
            new TopologySnapshot.Range(Long.MAX_VALUE, List.of(2, 1), -1)),
        4_020_000);
  }

  /** A feed whose view the test sets. */
  private static final class SettableFeed implements TopologyFeed {
    volatile TopologySnapshot view = view(1, 1);
    final List<Runnable> listeners = new CopyOnWriteArrayList<>();

    @Override
    public TopologySnapshot current() {
      return view;
    }

    @Override
    public AutoCloseable onChange(Runnable changed) {
      listeners.add(changed);
      return () -> listeners.remove(changed);
    }

    void set(TopologySnapshot next) {
      view = next;
      listeners.forEach(Runnable::run);
    }
  }

  private static final class Recorder implements ClientProtocolClient.TopologyListener {
    final List<TopologySnapshot> views = new CopyOnWriteArrayList<>();
    final CompletableFuture<String> lost = new CompletableFuture<>();

    @Override
    public void updated(TopologySnapshot topology) {
      views.add(topology);
    }

    @Override
    public void lost(String reason) {
      lost.complete(reason);
    }
  }

  @Test
  void watch_getsTheViewAtOnce_thenEveryChange_andNothingForAnUnchangedView() throws Exception {
    SettableFeed feed = new SettableFeed();
    ClientProtocolServer server =
        ClientProtocolServer.start(LOOPBACK, r -> new CompletableFuture<>(), feed, config, loops);
    closeables.add(server);
    ClientProtocolClient client =
        ClientProtocolClient.connect(server.localAddress(), config, loops);
    closeables.add(client);
    Recorder recorder = new Recorder();
    assertTrue(client.watchTopology(recorder));
    assertFalse(client.watchTopology(new Recorder()), "one watch per connection");
    Await.until(() -> recorder.views.size() == 1, LONG, "the first view");
    assertEquals(view(1, 1), recorder.views.get(0));
    Await.until(() -> feed.listeners.size() == 1, LONG, "the server's subscription");

    feed.set(view(2, 1)); // only the sequence moved: nothing a router uses
    feed.set(view(3, 2)); // the leader of the first range moved
    Await.until(() -> recorder.views.size() == 2, LONG, "the leader change");
    assertEquals(view(3, 2), recorder.views.get(1));

    server.close();
    String reason = recorder.lost.get(LONG.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    assertTrue(reason.contains("closed"), reason);
    Await.until(feed.listeners::isEmpty, LONG, "the server ends its subscription");
    assertEquals(2, recorder.views.size());
  }

  @Test
  void view_roundTripsTheWire() throws Exception {
    TopologySnapshot v = view(7, 2);
    assertEquals(v, TopologyMessages.decode(TopologyMessages.encode(v)));
    TopologySnapshot empty = new TopologySnapshot(0, 0, List.of(), List.of());
    assertEquals(empty, TopologyMessages.decode(TopologyMessages.encode(empty)));
  }

  @Test
  void forgedViews_areRefusedWhole_namingWhatIsWrong() {
    Topology good = TopologyMessages.encode(view(1, 1));
    assertRefused(
        good.toBuilder().setRanges(0, good.getRanges(0).toBuilder().setEndToken(Long.MAX_VALUE)),
        "ascending");
    assertRefused(
        good.toBuilder().setRanges(0, good.getRanges(0).toBuilder().addReplicas(9)),
        "not a member");
    assertRefused(
        good.toBuilder().setRanges(0, good.getRanges(0).toBuilder().setLeader(9)), "not a member");
    assertRefused(
        good.toBuilder().setMembers(0, good.getMembers(0).toBuilder().setClientPort(0)),
        "client_port");
    assertRefused(
        good.toBuilder().setMembers(0, good.getMembers(0).toBuilder().setHost("")), "host");
    assertRefused(good.toBuilder().setMembers(1, good.getMembers(0)), "appears twice");
    assertRefused(
        good.toBuilder().setMembers(0, good.getMembers(0).toBuilder().setNodeId(-1)), "node_id");
    assertRefused(good.toBuilder().setRingVersion(0), "without a ring version");
    assertRefused(
        good.toBuilder().setRanges(0, good.getRanges(0).toBuilder().addReplicas(1)), "twice");
    // uint64 above 2^63-1 arrives negative; a day is above the one-hour bound.
    assertRefused(good.toBuilder().setCreateSettleMicros(-1), "create_settle_micros");
    assertRefused(good.toBuilder().setCreateSettleMicros(86_400_000_000L), "create_settle_micros");
  }

  @Test
  void createSettle_roundTrips_andAChangeOfItIsAChangeOfTheView() throws Exception {
    TopologySnapshot v = view(7, 2);
    assertEquals(
        4_020_000, TopologyMessages.decode(TopologyMessages.encode(v)).createSettleMicros());
    TopologySnapshot unknown = new TopologySnapshot(v.ringVersion(), 8, v.members(), v.ranges(), 0);
    assertFalse(unknown.sameAs(v), "a router must hear the cluster's T + 2ε when it learns it");
    assertEquals(0, TopologyMessages.decode(TopologyMessages.encode(unknown)).createSettleMicros());
  }

  private static void assertRefused(Topology.Builder forged, String reason) {
    WireDecodeException e =
        assertThrows(WireDecodeException.class, () -> TopologyMessages.decode(forged.build()));
    assertTrue(e.getMessage().contains(reason), e.getMessage());
  }
}
