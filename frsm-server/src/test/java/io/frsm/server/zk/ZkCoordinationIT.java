package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Membership, range terms and leases against a real (embedded) ZooKeeper on loopback. */
class ZkCoordinationIT {
  @TempDir Path dir;
  private EmbeddedZooKeeper server;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ZkLayout layout = new ZkLayout("test-cluster");

  @BeforeEach
  void start() throws Exception {
    server = EmbeddedZooKeeper.start(dir);
  }

  @AfterEach
  void stop() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    if (server != null) {
      server.close();
    }
  }

  private CuratorFramework client() throws InterruptedException {
    CuratorFramework c =
        CuratorFrameworkFactory.builder()
            .connectString(server.connectString())
            .sessionTimeoutMs(4000)
            .connectionTimeoutMs(4000)
            .retryPolicy(new ExponentialBackoffRetry(50, 3))
            .build();
    c.start();
    assertTrue(c.blockUntilConnected(30, TimeUnit.SECONDS));
    closeables.add(c);
    return c;
  }

  @Test
  void members_appearAndVanishWithTheirSessions() throws Exception {
    CuratorFramework a = client();
    CuratorFramework b = client();
    MembershipRegistry ra = new MembershipRegistry(a, layout);
    MembershipRegistry rb = new MembershipRegistry(b, layout);
    closeables.add(ra);
    closeables.add(rb);
    ra.register(new NodeInfo(1, "127.0.0.1", 7001, 9001, "r1"));
    rb.register(new NodeInfo(2, "127.0.0.1", 7002, 9002, "r2"));
    assertEquals(List.of(1, 2), ra.members().stream().map(NodeInfo::nodeId).toList());
    assertEquals("r2", ra.members().get(1).rack());
    // A second live process with the same id is refused.
    assertThrows(
        IllegalStateException.class,
        () -> ra.register(new NodeInfo(2, "127.0.0.1", 7003, 9003, "r3")));
    b.close(); // session ends: the ephemeral registration goes with it
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ra.members().size() != 1) {
      assertTrue(System.nanoTime() < deadline, "node 2 still registered");
      Thread.onSpinWait();
    }
  }

  @Test
  void termBump_revokesThePredecessorsLease() throws Exception {
    RangeTermStore storeA = new RangeTermStore(client(), layout, System::nanoTime);
    RangeTermStore storeB = new RangeTermStore(client(), layout, System::nanoTime);
    TermGrant a = storeA.bumpTerm("r0", 1).orElseThrow();
    assertEquals(1, a.term());
    long[] sent = new long[1];
    assertTrue(storeA.renew(a, sent));
    assertTrue(sent[0] > 0);
    TermGrant b = storeB.bumpTerm("r0", 2).orElseThrow();
    assertEquals(2, b.term());
    assertFalse(storeA.renew(a, sent), "the predecessor's lease must be revoked");
    assertTrue(storeB.renew(b, sent));
    assertEquals(Optional.of(2L), storeA.current("r0").map(t -> t[0]));
    assertEquals(Optional.of(2L), storeA.current("r0").map(t -> t[1]));
  }

  @Test
  void releaseMark_letsOnlyTheNextBumpSkipTheWait() throws Exception {
    RangeTermStore storeA = new RangeTermStore(client(), layout, System::nanoTime);
    RangeTermStore storeB = new RangeTermStore(client(), layout, System::nanoTime);
    TermGrant a = storeA.bumpTerm("r-release", 1).orElseThrow();
    assertFalse(a.predecessorReleased(), "the first term has no predecessor to release");
    assertTrue(a.noEarlierLease(), "...so it has no lease to wait out either");
    assertTrue(storeA.markReleased(a));
    assertFalse(storeA.markReleased(a), "a mark moves the generation: once only");
    long[] sent = new long[1];
    assertFalse(storeA.renew(a, sent), "a released term renews no more");

    TermGrant b = storeB.bumpTerm("r-release", 2).orElseThrow();
    assertEquals(2, b.term());
    assertTrue(b.predecessorReleased(), "the bump found term 1's mark");
    assertTrue(b.noEarlierLease());
    TermGrant c = storeA.bumpTerm("r-release", 1).orElseThrow();
    assertFalse(c.predecessorReleased(), "term 2 was revoked, not released");
    assertFalse(c.noEarlierLease(), "term 3 waits out term 2's lease");
    assertFalse(storeB.markReleased(b), "a revoked term cannot be marked afterwards");
    TermGrant d = storeB.bumpTerm("r-release", 2).orElseThrow();
    assertFalse(d.predecessorReleased());
    assertFalse(d.noEarlierLease());
    assertTrue(storeB.renew(d, sent));
  }

  @Test
  void concurrentBumps_neverGrantOneTermTwice() throws Exception {
    int contenders = 6;
    List<RangeTermStore> stores = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      stores.add(new RangeTermStore(client(), layout, System::nanoTime));
    }
    stores.get(0).bumpTerm("r1", 0).orElseThrow();
    java.util.concurrent.ExecutorService pool = Executors.newFixedThreadPool(contenders);
    closeables.add(pool::shutdownNow);
    java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(contenders);
    List<java.util.concurrent.Future<List<Long>>> futures = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      RangeTermStore store = stores.get(i);
      int node = i + 1;
      futures.add(
          pool.submit(
              () -> {
                start.await();
                List<Long> won = new ArrayList<>();
                for (int attempt = 0; attempt < 20; attempt++) {
                  store.bumpTerm("r1", node).ifPresent(g -> won.add(g.term()));
                }
                return won;
              }));
    }
    List<Long> granted = new ArrayList<>();
    for (java.util.concurrent.Future<List<Long>> f : futures) {
      granted.addAll(f.get(60, TimeUnit.SECONDS));
    }
    granted.sort(null);
    // Every grant is a distinct term, and the terms are exactly 2..(1 + grants): no gaps, no
    // term granted twice — whatever interleaving the race produced.
    for (int i = 0; i < granted.size(); i++) {
      assertEquals(i + 2L, granted.get(i));
    }
    assertEquals(Optional.of(1L + granted.size()), stores.get(0).current("r1").map(t -> t[0]));
  }

  @Test
  void renewAll_isOneMultiForEveryRange_andNamesOnlyTheRevokedOnes() throws Exception {
    RangeTermStore mine = new RangeTermStore(client(), layout, System::nanoTime);
    RangeTermStore theirs = new RangeTermStore(client(), layout, System::nanoTime);
    List<TermGrant> grants = new ArrayList<>();
    for (String range : List.of("b0", "b1", "b2", "b3")) {
      grants.add(mine.bumpTerm(range, 1).orElseThrow());
    }
    long[] sent = new long[1];
    assertTrue(
        java.util.Arrays.equals(
            new boolean[] {true, true, true, true}, mine.renewAll(grants, sent)));
    theirs.bumpTerm("b1", 2).orElseThrow();
    theirs.bumpTerm("b3", 2).orElseThrow();
    long before = System.nanoTime();
    boolean[] renewed = mine.renewAll(grants, sent);
    assertTrue(
        java.util.Arrays.equals(new boolean[] {true, false, true, false}, renewed),
        java.util.Arrays.toString(renewed));
    assertTrue(sent[0] >= before, "the stamp is the successful multi's send time");
  }

  @Test
  void leaseKeeper_renewsUntilASuccessorBumps_thenReportsLost() throws Exception {
    CuratorFramework c = client();
    RangeTermStore store = new RangeTermStore(c, layout, System::nanoTime);
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    closeables.add(scheduler::shutdownNow);
    BlockingQueue<String> events = new LinkedBlockingQueue<>();
    LeaseKeeper keeper =
        new LeaseKeeper(
            c,
            store,
            Duration.ofMillis(400),
            scheduler,
            new LeaseKeeper.Listener() {
              @Override
              public void renewed(TermGrant grant, long sentNanos) {
                events.add("renewed " + grant.term());
              }

              @Override
              public void lost(String rangeId, String reason) {
                events.add("lost " + rangeId);
              }
            });
    closeables.add(keeper);
    TermGrant grant = store.bumpTerm("r2", 1).orElseThrow();
    keeper.hold(grant);
    assertEquals("renewed 1", events.poll(30, TimeUnit.SECONDS));
    assertEquals("renewed 1", events.poll(30, TimeUnit.SECONDS));
    new RangeTermStore(client(), layout, System::nanoTime).bumpTerm("r2", 2).orElseThrow();
    String event;
    do {
      event = events.poll(30, TimeUnit.SECONDS);
    } while ("renewed 1".equals(event));
    assertEquals("lost r2", event);
    assertFalse(keeper.holds("r2"));
  }

  /**
   * A lease so long ({@code L} = 10 min, renewals every 2.5 min) that no renewal can fall inside
   * this test: only the connection-state listener can end the leases in time.
   */
  private static final Duration LONG_LEASE = Duration.ofMinutes(10);

  /**
   * How soon a lost connection must end the leases: Curator notices a closed socket at once and a
   * silent one within 2/3 of the 4 s session timeout; the rest is margin for a loaded machine.
   * Still five times shorter than the first renewal ({@code L/4} = 150 s).
   */
  private static final Duration LOSS_BOUND = Duration.ofSeconds(30);

  /** What a {@link LeaseKeeper} reported: renewals counted, losses as "range: reason". */
  private static final class RecordingListener implements LeaseKeeper.Listener {
    final BlockingQueue<String> lost = new LinkedBlockingQueue<>();

    @Override
    public void renewed(TermGrant grant, long sentNanos) {}

    @Override
    public void lost(String rangeId, String reason) {
      lost.add(rangeId + ": " + reason);
    }

    /** The next {@code count} losses, each within what is left of {@code bound} from {@code t0}. */
    List<String> awaitLosses(int count, long t0, Duration bound) throws InterruptedException {
      List<String> out = new ArrayList<>();
      while (out.size() < count) {
        long left = t0 + bound.toNanos() - System.nanoTime();
        String next = lost.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
        if (next == null) {
          throw new AssertionError(
              "only " + out + " of " + count + " leases ended within " + bound);
        }
        out.add(next);
      }
      out.sort(null);
      return out;
    }
  }

  /**
   * A keeper whose initial (empty) renewal pass has run: its next pass is {@code L/4} away, so
   * whatever ends a lease before then is not a renewal.
   */
  private LeaseKeeper keeperWithNoRenewalDue(
      CuratorFramework c, RangeTermStore store, LeaseKeeper.Listener listener) throws Exception {
    ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    closeables.add(scheduler::shutdownNow);
    LeaseKeeper keeper = new LeaseKeeper(c, store, LONG_LEASE, scheduler, listener);
    closeables.add(keeper);
    // One thread, tasks due at once run in submission order: this runs after the first pass.
    scheduler.submit(() -> {}).get(30, TimeUnit.SECONDS);
    assertEquals(0, keeper.renewalBatches(), "the first pass had nothing to renew");
    return keeper;
  }

  /**
   * Issue 27: a ZooKeeper blip must not be an outage. SUSPENDED (the server gone, the session
   * perhaps alive) ends no lease and sends no renewal; the leases run out in the core by
   * themselves. Only the LOST session (here Curator's, once the session timeout passed without a
   * connection) ends them, each at once. Before, SUSPENDED ended every lease at once.
   */
  @Test
  void connectionSuspended_endsNoLease_theLostSessionEndsEveryLease() throws Exception {
    CuratorFramework c = client();
    List<String> states = new java.util.concurrent.CopyOnWriteArrayList<>();
    c.getConnectionStateListenable().addListener((client, state) -> states.add(state.name()));
    RangeTermStore store = new RangeTermStore(c, layout, System::nanoTime);
    RecordingListener listener = new RecordingListener();
    LeaseKeeper keeper = keeperWithNoRenewalDue(c, store, listener);
    List<String> ranges = List.of("a", "b", "c");
    for (String range : ranges) {
      keeper.hold(store.bumpTerm(range, 1).orElseThrow());
    }

    long stopped = System.nanoTime();
    server.close();
    server = null;
    List<String> ended = listener.awaitLosses(ranges.size(), stopped, LOSS_BOUND);
    long firstLossNanos = System.nanoTime() - stopped;

    assertEquals(
        List.of(
            "a: ZooKeeper connection LOST",
            "b: ZooKeeper connection LOST",
            "c: ZooKeeper connection LOST"),
        ended);
    // The keeper and this test hear LOST from separate listeners, in no set order.
    long deadline = System.nanoTime() + LOSS_BOUND.toNanos();
    while (!states.contains("LOST")) {
      assertTrue(System.nanoTime() < deadline, "this test's listener heard LOST: " + states);
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
    assertTrue(
        states.indexOf("SUSPENDED") >= 0 && states.indexOf("SUSPENDED") < states.indexOf("LOST"),
        "SUSPENDED came first and ended nothing: " + states);
    // LOST comes a session timeout (4 s) after the connection went; SUSPENDED at once.
    assertTrue(
        firstLossNanos >= TimeUnit.SECONDS.toNanos(2),
        "leases ended " + TimeUnit.NANOSECONDS.toMillis(firstLossNanos) + " ms after the stop");
    assertEquals(0, keeper.renewalBatches(), "no renewal ran: none was due, none was tried");
    for (String range : ranges) {
      assertFalse(keeper.holds(range));
    }
  }

  @Test
  void sessionExpired_endsEveryLease_asLost() throws Exception {
    CuratorFramework c = client();
    List<String> states = new java.util.concurrent.CopyOnWriteArrayList<>();
    c.getConnectionStateListenable().addListener((client, state) -> states.add(state.name()));
    RangeTermStore store = new RangeTermStore(c, layout, System::nanoTime);
    RecordingListener listener = new RecordingListener();
    LeaseKeeper keeper = keeperWithNoRenewalDue(c, store, listener);
    keeper.hold(store.bumpTerm("x", 1).orElseThrow());
    keeper.hold(store.bumpTerm("y", 1).orElseThrow());

    // The server ends the session while the connection itself stays up.
    long expired = System.nanoTime();
    c.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    List<String> ended = listener.awaitLosses(2, expired, LOSS_BOUND);

    assertEquals(List.of("x: ZooKeeper connection LOST", "y: ZooKeeper connection LOST"), ended);
    assertFalse(states.contains("SUSPENDED"), "LOST came without SUSPENDED first: " + states);
    assertEquals(0, keeper.renewalBatches(), "no renewal ran: the connection listener ended them");
  }

  /**
   * The whole path on one node: range leadership wins its ranges, then ZooKeeper goes away, and the
   * sink the node's core listens on hears LeaseLost for every range it held, long before a renewal
   * could have failed.
   */
  @Test
  void zooKeeperGone_leaseLostReachesTheCoreForEveryHeldRange() throws Exception {
    CuratorFramework c = client();
    Ring ring = threeNodeRing(); // RF 3: node 1 replicates every range
    Map<Integer, Long> granted = new ConcurrentHashMap<>();
    Set<Integer> lost = ConcurrentHashMap.newKeySet();
    RangeLeadership.Sink sink =
        new QuietSink() {
          @Override
          public void granted(int range, long term, boolean noEarlierLease) {
            granted.put(range, term);
          }

          @Override
          public void lost(int range) {
            lost.add(range);
          }
        };
    RangeLeadership leadership = new RangeLeadership(c, layout, 1, ring, LONG_LEASE, sink);
    closeables.add(leadership);
    // Only node 1 is ready: it is every range's preferred holder.
    leadership.membersChanged(Set.of(1, 2, 3), Set.of(1));
    int ranges = ring.rangeCount();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (granted.size() < ranges || leadership.rangesHeld() < ranges) {
      assertTrue(System.nanoTime() < deadline, "node 1 won " + granted.keySet() + " in time");
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertEquals(Set.of(), lost, "nothing lost while ZooKeeper is up");
    long batchesBefore = leadership.renewalBatches();

    long stopped = System.nanoTime();
    server.close();
    server = null;
    while (lost.size() < ranges) {
      assertTrue(
          System.nanoTime() - stopped < LOSS_BOUND.toNanos(),
          "LeaseLost reached the core for "
              + lost
              + " of "
              + ranges
              + " ranges within "
              + LOSS_BOUND);
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertEquals(granted.keySet(), lost, "every held range");
    assertEquals(
        batchesBefore, leadership.renewalBatches(), "no renewal ran after ZooKeeper went away");
  }

  /**
   * Routing reads the candidacy view: the core learns that the node competes for a range before
   * routing can send it an operation for it, and that it stopped only after routing stopped, so an
   * operation queued for a grant is either served or given back, never left waiting for one that
   * will not come.
   */
  @Test
  void candidacy_reachesTheCoreBeforeRoutingUsesAView_andLeavesItAfter() throws Exception {
    CuratorFramework c = client();
    Ring ring = threeNodeRing();
    int ranges = ring.rangeCount();
    // Each candidacy with what routing answered for its range at that moment.
    List<String> told = java.util.Collections.synchronizedList(new ArrayList<>());
    RangeLeadership[] leadership = new RangeLeadership[1];
    java.util.concurrent.CountDownLatch views = new java.util.concurrent.CountDownLatch(1);
    RangeLeadership.Sink sink =
        new QuietSink() {
          @Override
          public void candidacy(int range, boolean candidate) {
            told.add(range + ":" + candidate + ":" + leadership[0].preferredHolder(range));
          }
        };
    leadership[0] = new RangeLeadership(c, layout, 1, ring, LONG_LEASE, sink);
    closeables.add(leadership[0]);
    assertEquals(-1, leadership[0].preferredHolder(0), "no view yet");

    // Only node 1 ready: it competes for every range, and the core hears so while routing still
    // has no view (-1) that could send it anything.
    leadership[0].membersChanged(Set.of(1, 2, 3), Set.of(1));
    awaitTold(told, ranges);
    for (int r = 0; r < ranges; r++) {
      assertTrue(told.contains(r + ":true:-1"), "range " + r + ": " + told);
    }
    assertEquals(1, leadership[0].preferredHolder(0));

    // All ready: node 1 keeps the ranges it is first replica of and gives up the others, which
    // the core hears only once routing already names their new preferred holder.
    told.clear();
    leadership[0].membersChanged(Set.of(1, 2, 3), Set.of(1, 2, 3));
    int given = 0;
    for (int r = 0; r < ranges; r++) {
      if (ring.replicasOfRange(r).get(0) != 1) {
        given++;
      }
    }
    assertTrue(given > 0, "the ring gives some ranges to nodes 2 and 3");
    awaitTold(told, given);
    for (String t : List.copyOf(told)) {
      String[] parts = t.split(":");
      int range = Integer.parseInt(parts[0]);
      assertEquals("false", parts[1], t);
      assertEquals(
          ring.replicasOfRange(range).get(0),
          Integer.parseInt(parts[2]),
          "routing moved first: " + t);
    }
    assertEquals(given, told.size(), "only the ranges whose candidacy changed: " + told);
  }

  /**
   * A node that wins many ranges at once (every peer down) bumps their terms together: a bump that
   * does not answer — a slow ZooKeeper write — holds up no other range. (The bumps once ran one
   * after another on the leadership's thread, so a stand-in took a crashed peer's ranges one round
   * trip at a time.)
   */
  @Test
  void aTermBumpThatDoesNotAnswer_holdsUpNoOtherRange() throws Exception {
    CuratorFramework c = client();
    Ring ring = threeNodeRing();
    int ranges = ring.rangeCount();
    int stuck = 0;
    java.util.concurrent.CountDownLatch answer = new java.util.concurrent.CountDownLatch(1);
    Map<Integer, Long> granted = new ConcurrentHashMap<>();
    RangeLeadership.Sink sink =
        new QuietSink() {
          @Override
          public void granted(int range, long term, boolean noEarlierLease) {
            granted.put(range, term);
          }
        };
    RangeLeadership leadership =
        new RangeLeadership(
            c,
            layout,
            1,
            ring,
            LONG_LEASE,
            sink,
            unreachable -> {},
            store ->
                (rangeId, node, entry) -> {
                  if (rangeId.equals(ZkLayout.rangeId(stuck))) {
                    assertTrue(answer.await(60, TimeUnit.SECONDS), "the stuck bump was let go");
                  }
                  return store.bumpTerm(rangeId, node, entry);
                });
    closeables.add(leadership);
    leadership.membersChanged(Set.of(1, 2, 3), Set.of(1)); // node 1 alone: every range is its

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (granted.size() < ranges - 1) {
      assertTrue(System.nanoTime() < deadline, "granted " + granted.keySet() + " of " + ranges);
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertFalse(granted.containsKey(stuck), "the stuck range's bump has not answered");
    assertEquals(ranges - 1, leadership.rangesHeld());

    answer.countDown();
    while (!granted.containsKey(stuck) || leadership.rangesHeld() < ranges) {
      assertTrue(System.nanoTime() < deadline, "the stuck range taken once its bump answered");
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
    }
    assertEquals(1L, granted.get(stuck), "the range's first term");
  }

  /** Three nodes on three racks, 4 vnodes each, replication factor 3. */
  private static Ring threeNodeRing() {
    List<NodeInfo> nodes =
        List.of(
            new NodeInfo(1, "127.0.0.1", 7001, 9001, "r1"),
            new NodeInfo(2, "127.0.0.1", 7002, 9002, "r2"),
            new NodeInfo(3, "127.0.0.1", 7003, 9003, "r3"));
    return Ring.of(1, nodes, 4, 3);
  }

  /**
   * A core that hears everything and answers releases "not clean"; tests override what they watch.
   */
  private static class QuietSink implements RangeLeadership.Sink {
    @Override
    public void granted(int range, long term, boolean noEarlierLease) {}

    @Override
    public CompletableFuture<Boolean> release(int range, long term) {
      return CompletableFuture.completedFuture(false);
    }

    @Override
    public void renewed(int range, long term, long sentNanos) {}

    @Override
    public void lost(int range) {}

    @Override
    public void candidacy(int range, boolean candidate) {}
  }

  private static void awaitTold(List<String> told, int count) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (told.size() < count) {
      assertTrue(System.nanoTime() < deadline, "told " + told);
      java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
