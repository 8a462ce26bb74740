package io.frsm.server.zk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A range's leader election ({@link RangeLatch}) against a real (embedded) ZooKeeper. */
class RangeLatchIT {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @TempDir Path dir;
  private EmbeddedZooKeeper server;
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final String path = new ZkLayout("latch-test").latch(ZkLayout.rangeId(7));

  /** Reads the latch for the checks; one for the whole test (a client's start and close log). */
  private CuratorFramework reader;

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

  @Test
  void firstEntryLeads_andTheNextLeadsOnceItLeaves() throws Exception {
    Outcomes a = new Outcomes();
    Outcomes b = new Outcomes();
    RangeLatch first = latch(client(), "1", a);
    first.start();
    await(first::leads, "the first entry to lead");
    RangeLatch second = latch(client(), "2", b);
    second.start();
    await(() -> second.entry() != null, "the second entry");
    assertEquals(2, participants(client()).size());
    assertFalse(second.leads(), "the second entry waits behind the first");

    first.close();
    await(second::leads, "the second entry to lead once the first left");
    assertFalse(first.leads());
    assertEquals(List.of("won"), a.heard, "a closed latch reports nothing more");
    assertEquals(List.of("won"), b.heard);
    second.close();
    awaitNoEntries();
  }

  /** Tests queue a Curator LeaderLatch among the nodes (RangeLatchBlocker): one order for both. */
  @Test
  void takesPartInOneElectionWithCuratorsLeaderLatch() throws Exception {
    CuratorFramework c = client();
    LeaderLatch curatorFirst = new LeaderLatch(c, path, "curator-1");
    curatorFirst.start();
    await(curatorFirst::hasLeadership, "Curator's latch to lead");
    RangeLatch ours = latch(client(), "2", new Outcomes());
    ours.start();
    await(() -> participantIds(c).equals(List.of("curator-1", "2")), "both, in join order");

    LeaderLatch curatorLast = new LeaderLatch(c, path, "curator-3");
    curatorLast.start();
    await(() -> participantIds(c).equals(List.of("curator-1", "2", "curator-3")), "three");
    assertEquals("curator-1", curatorFirst.getLeader().getId());

    curatorFirst.close();
    await(ours::leads, "our entry to lead after Curator's before it left");
    assertFalse(curatorLast.hasLeadership());
    ours.close();
    await(curatorLast::hasLeadership, "Curator's entry after ours to lead once ours left");
    curatorLast.close();
    awaitNoEntries();
  }

  /**
   * Regression (Curator's LeaderLatch logged SEVERE "failed to find our node; resetting" here):
   * entries that leave while their own checks are in flight — right after joining, and at the
   * moment the entry before them goes — report nothing after leaving, leave no entry behind, and
   * nothing logs an error (nor the latch a warning).
   */
  @Test
  void leavingWhileItsChecksAreInFlight_isQuiet_andLeavesNoEntry() throws Exception {
    List<String> problems = new CopyOnWriteArrayList<>();
    Handler capture = problemsInto(problems);
    List<Logger> loggers = List.of(Logger.getLogger("org.apache"), Logger.getLogger("io.frsm"));
    loggers.forEach(l -> l.addHandler(capture));
    try {
      CuratorFramework x = client();
      CuratorFramework y = client();
      AtomicInteger heardAfterClose = new AtomicInteger();
      for (int round = 0; round < 150; round++) {
        Outcomes holder = new Outcomes();
        RangeLatch first = latch(x, "1", holder);
        first.start();
        await(first::leads, "round " + round + ": the first entry to lead");
        // Joins behind the holder and leaves as the holder goes: its predecessor's watch fires
        // while it leaves, or its check after creating its entry is still unanswered.
        Outcomes standIn = new Outcomes();
        RangeLatch second = latch(y, "2", standIn);
        second.start();
        if (round % 3 == 1) {
          await(() -> second.entry() != null, "the second entry");
        }
        CompletableFuture<Void> leaving = CompletableFuture.runAsync(second::close);
        first.close();
        leaving.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        int heard = standIn.heard.size();
        awaitNoEntries();
        heardAfterClose.addAndGet(standIn.heard.size() - heard);
      }
      assertEquals(0, heardAfterClose.get(), "a closed latch reported leadership");
    } finally {
      loggers.forEach(l -> l.removeHandler(capture));
    }
    assertEquals(List.of(), problems, "errors, or latch warnings, logged");
  }

  /**
   * Regression: the first entry of a latch also creates the latch znode, with calls Curator makes
   * on its background thread; a client closed under them interrupts them, and Curator logged SEVERE
   * "Background exception was not retry-able" (a node stopped just after it joined a new range's
   * latch, as while a cluster forms). The client here closes as soon as the latch znode appears,
   * once the entry's creation is answered: quiet.
   */
  @Test
  void clientClosedOnceTheEntrysCreationIsAnswered_logsNoError() throws Exception {
    List<String> problems = new CopyOnWriteArrayList<>();
    Handler capture = problemsInto(problems);
    Logger curator = Logger.getLogger("org.apache.curator");
    curator.addHandler(capture);
    CuratorFramework watching = client();
    try {
      for (int round = 0; round < 40; round++) {
        CuratorFramework c = client(); // closing it again at the end is a no-op
        String fresh = new ZkLayout("latch-test").latch(ZkLayout.rangeId(100 + round));
        RangeLatch latch = new RangeLatch(c, fresh, "1", "participant 1", new Outcomes());
        CompletableFuture<Void> clientClosed = new CompletableFuture<>();
        watching
            .checkExists()
            .usingWatcher(
                (Watcher)
                    created ->
                        CompletableFuture.runAsync(
                            () -> {
                              latch.close();
                              try {
                                latch.creationAnswered().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                              } catch (Exception e) {
                                clientClosed.completeExceptionally(e);
                              }
                              c.close();
                              clientClosed.complete(null);
                            }))
            .forPath(fresh);
        latch.start();
        clientClosed.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      curator.removeHandler(capture);
    }
    assertEquals(List.of(), problems, "errors logged");
  }

  @Test
  void anEntryThatWentWithAnExpiredSession_joinsAgain_andLeads() throws Exception {
    CuratorFramework c = client();
    Outcomes outcomes = new Outcomes();
    RangeLatch latch = latch(c, "1", outcomes);
    latch.start();
    await(latch::leads, "the entry to lead");
    String before = latch.entry();
    long oldSession = c.getZookeeperClient().getZooKeeper().getSessionId();

    c.getZookeeperClient().getZooKeeper().getTestable().injectSessionExpiration();
    await(
        () -> latch.leads() && latch.entry() != null && !latch.entry().equals(before),
        "a new entry in the new session to lead");
    Stat now = client().checkExists().forPath(latch.entry());
    assertNotEquals(oldSession, now.getEphemeralOwner());
    assertEquals(c.getZookeeperClient().getZooKeeper().getSessionId(), now.getEphemeralOwner());
    assertEquals(List.of("won", "lost", "won"), outcomes.heard);
    latch.close();
    awaitNoEntries();
  }

  /** What a latch reported, in order. */
  private static final class Outcomes implements RangeLatch.Listener {
    final List<String> heard = new CopyOnWriteArrayList<>();

    @Override
    public void won(RangeLatch latch) {
      heard.add("won");
    }

    @Override
    public void lost(RangeLatch latch) {
      heard.add("lost");
    }
  }

  private RangeLatch latch(CuratorFramework c, String id, Outcomes outcomes) {
    RangeLatch latch = new RangeLatch(c, path, id, "participant " + id, outcomes);
    closeables.add(latch);
    return latch;
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

  /** The participants in join order, as Curator's LeaderLatch lists them. */
  private List<Participant> participants(CuratorFramework c) throws Exception {
    LeaderLatch reader = new LeaderLatch(c, path, "reader"); // never started: reads only
    return List.copyOf(reader.getParticipants());
  }

  private List<String> participantIds(CuratorFramework c) {
    try {
      return participants(c).stream().map(Participant::getId).toList();
    } catch (Exception e) {
      return List.of(); // an entry left while listed: look again
    }
  }

  private void awaitNoEntries() throws Exception {
    if (reader == null) {
      reader = client();
    }
    await(
        () -> {
          try {
            return reader.checkExists().forPath(path) == null
                || reader.getChildren().forPath(path).isEmpty();
          } catch (Exception e) {
            return false;
          }
        },
        "no entry left in the latch");
  }

  /**
   * Errors from anyone, warnings from the latch. (Curator warns of what a test's own clients do,
   * such as a connection event handled after the client closed.)
   */
  private static Handler problemsInto(List<String> problems) {
    return new Handler() {
      @Override
      public void publish(LogRecord record) {
        int level = record.getLevel().intValue();
        if (level >= Level.SEVERE.intValue()
            || (level >= Level.WARNING.intValue()
                && record.getLoggerName().startsWith("io.frsm.server.zk"))) {
          problems.add(record.getLoggerName() + ": " + record.getMessage());
        }
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
  }

  private static void await(BooleanSupplier condition, String what) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out after " + TIMEOUT + " waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }
}
