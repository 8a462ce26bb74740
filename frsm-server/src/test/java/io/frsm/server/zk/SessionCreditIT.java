package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The session's credit (docs/PROTOCOL.md "Leases backed by the session") against a real embedded
 * ZooKeeper: what {@link LeaseKeeper} reports while ZooKeeper is gone, and the bump's check of the
 * bumper's own latch entry.
 */
class SessionCreditIT {
  private static final Duration LEASE = Duration.ofMillis(400);
  private static final int SESSION_MS = 4_000;
  private static final long RHO_PPM = 1_000;
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private EmbeddedZooKeeper server;
  private CuratorFramework client;
  private ScheduledExecutorService scheduler;
  private final ZkLayout layout = new ZkLayout("credit-cluster");

  @BeforeEach
  void start() throws Exception {
    server = EmbeddedZooKeeper.start(dir);
    client =
        CuratorFrameworkFactory.builder()
            .connectString(server.connectString())
            .sessionTimeoutMs(SESSION_MS)
            .connectionTimeoutMs(SESSION_MS)
            .retryPolicy(new ExponentialBackoffRetry(50, 3))
            .build();
    client.start();
    assertTrue(client.blockUntilConnected(30, TimeUnit.SECONDS));
    scheduler = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterEach
  void stop() throws Exception {
    scheduler.shutdownNow();
    client.close();
    if (server != null) {
      server.close();
    }
  }

  /** A reported renewal; {@code credited}: by the keeper's credit thread, not a round trip. */
  private record Report(String range, long sentNanos, long atNanos, boolean credited) {}

  /**
   * Three leases: {@code a} and {@code c} won with a latch entry of this session, {@code b} without
   * one. With ZooKeeper stopped, {@code a} is credited — never in the future, never past its last
   * renewal + {@code (S/3)·(1−ρ)/(1+ρ)} — until the LOST session ends it; {@code b} gets nothing
   * (no proof); {@code c} gets nothing once released, though its proof would allow more.
   */
  @Test
  void whileZooKeeperIsGone_provenLeasesAreCreditedUpToTheBound_othersAndReleasedOnesAreNot()
      throws Exception {
    RangeTermStore store = new RangeTermStore(client, layout, System::nanoTime);
    long session = client.getZookeeperClient().getZooKeeper().getSessionId();
    List<Report> reports = new CopyOnWriteArrayList<>();
    List<String> lost = new CopyOnWriteArrayList<>();
    LeaseKeeper keeper =
        new LeaseKeeper(
            client,
            store,
            LEASE,
            RHO_PPM,
            scheduler,
            new LeaseKeeper.Listener() {
              @Override
              public void renewed(TermGrant grant, long sentNanos) {
                boolean credited = Thread.currentThread().getName().equals("frsm-lease-credit");
                reports.add(new Report(grant.rangeId(), sentNanos, System.nanoTime(), credited));
              }

              @Override
              public void lost(String rangeId, String reason) {
                lost.add(rangeId);
              }
            });
    keeper.hold(store.bumpTerm("a", 1).orElseThrow().inLatchSession(session));
    keeper.hold(store.bumpTerm("b", 1).orElseThrow());
    keeper.hold(store.bumpTerm("c", 1).orElseThrow().inLatchSession(session));
    await(
        () -> List.of("a", "b", "c").stream().allMatch(r -> count(reports, r) >= 2),
        "renewals of every lease");

    long stoppedAt = System.nanoTime();
    server.close();
    server = null;
    await(() -> reports.stream().anyMatch(r -> r.credited() && r.range().equals("c")), "credit");
    keeper.release("c");
    long releasedAt = System.nanoTime();
    await(() -> lost.contains("a"), "the LOST session to end a");

    long credit = TimeUnit.MILLISECONDS.toNanos(SESSION_MS) / 3 * (1_000_000 - RHO_PPM) / 1_001_000;
    long proofA = lastRoundTrip(reports, "a");
    long proofC = lastRoundTrip(reports, "c");
    List<Report> credited = reports.stream().filter(Report::credited).toList();
    for (Report r : credited) {
      assertTrue(r.sentNanos() <= r.atNanos(), "credited into the future: " + r);
      long proof = r.range().equals("a") ? proofA : proofC;
      assertTrue(
          r.sentNanos() <= proof + credit,
          "credited "
              + TimeUnit.NANOSECONDS.toMillis(r.sentNanos() - proof)
              + " ms after the proof, past the bound of "
              + TimeUnit.NANOSECONDS.toMillis(credit)
              + " ms: "
              + r);
    }
    assertEquals(
        List.of(),
        credited.stream().filter(r -> r.range().equals("b")).toList(),
        "b was never proven in the latch session");
    assertEquals(
        List.of(),
        credited.stream().filter(r -> r.range().equals("c") && r.atNanos() > releasedAt).toList(),
        "nothing for c after its release");
    long furthest = lastSent(reports, "a") - stoppedAt;
    assertTrue(
        furthest > credit / 2 && furthest > 2 * LEASE.toNanos(),
        "a was carried well past the lease: "
            + TimeUnit.NANOSECONDS.toMillis(furthest)
            + " ms after the stop");
    System.out.printf(
        "credited: a up to %d ms after ZooKeeper stopped (bound %d ms after its last renewal),"
            + " %d credited renewals%n",
        TimeUnit.NANOSECONDS.toMillis(furthest),
        TimeUnit.NANOSECONDS.toMillis(credit),
        credited.size());
    keeper.close();
  }

  /** A bump checks the bumper's own latch entry in its multi: gone, the term does not move. */
  @Test
  void aBumpWhoseLatchEntryIsGone_failsAndLeavesTheTerm() throws Exception {
    RangeTermStore store = new RangeTermStore(client, layout, System::nanoTime);
    String latch = layout.latch("r");
    client.create().creatingParentsIfNeeded().forPath(latch);
    String entry =
        client
            .create()
            .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
            .forPath(latch + "/n-", new byte[0]);
    assertEquals(1, store.bumpTerm("r", 1, entry).orElseThrow().term());

    client.delete().forPath(entry);
    assertThrows(KeeperException.NoNodeException.class, () -> store.bumpTerm("r", 2, entry));
    assertEquals(1, store.current("r").orElseThrow()[0], "the term did not move");
    assertEquals(2, store.bumpTerm("r", 2).orElseThrow().term(), "unchecked, it would have");
  }

  private static long count(List<Report> reports, String range) {
    return reports.stream().filter(r -> r.range().equals(range)).count();
  }

  private static long lastSent(List<Report> reports, String range) {
    return reports.stream()
        .filter(r -> r.range().equals(range))
        .mapToLong(Report::sentNanos)
        .max()
        .orElse(Long.MIN_VALUE);
  }

  /** The send time of the range's last renewal that was a round trip (the keeper's proof). */
  private static long lastRoundTrip(List<Report> reports, String range) {
    return reports.stream()
        .filter(r -> r.range().equals(range) && !r.credited())
        .mapToLong(Report::sentNanos)
        .max()
        .orElseThrow();
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "waited " + WAIT + " for " + what);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
