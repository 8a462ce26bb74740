package io.frsm.server.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Placement;
import io.frsm.server.stream.RangeCopier;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.RangeCopyRequests.Request;
import io.frsm.server.zk.RangeCopyRequests.State;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The incoming node's copy agent against a real ZooKeeper, with copiers that fail on purpose
 * (docs/PROTOCOL.md "Membership changes", "Copy"): a copy that fails from every voter in every
 * round is recorded as failed with the last reason — so the change stops at its learner version and
 * never counts the learner as a voter on an incomplete copy —; a voter that fails is left for the
 * next one; a request for a range this node is no learner of is refused and left open.
 */
class RangeCopyAgentIT {
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final int LEARNER = 4;

  @TempDir Path dir;
  private EmbeddedZooKeeper server;
  private CuratorFramework zk;
  private final ZkLayout layout = new ZkLayout("copy-agent-test");
  private RingHistory history;
  private RangeCopyRequests requests;
  private RingVersion initial;

  @BeforeEach
  void start() throws Exception {
    server = EmbeddedZooKeeper.start(dir);
    zk =
        CuratorFrameworkFactory.builder()
            .connectString(server.connectString())
            .sessionTimeoutMs(10_000)
            .retryPolicy(new ExponentialBackoffRetry(50, 3))
            .build();
    zk.start();
    assertTrue(zk.blockUntilConnected(30, TimeUnit.SECONDS));
    history = new RingHistory(zk, layout);
    requests = new RangeCopyRequests(zk, layout);
    Placement formed =
        Placement.of(List.of(0L, Long.MAX_VALUE), List.of(List.of(1, 2, 3), List.of(2, 3, 1)));
    initial = RingVersion.initial(formed);
    // Version 1: node 4 joins range 0 as a learner; range 1 stays as it was.
    RingVersion v1 =
        new RingVersion(formed.withRange(1, 0, List.of(1, 2, 3), List.of(LEARNER)), Set.of());
    assertTrue(history.publish(initial, v1));
  }

  @AfterEach
  void stop() throws Exception {
    if (zk != null) {
      zk.close();
    }
    if (server != null) {
      server.close();
    }
  }

  private RangeCopyAgent agent(RangeCopier copier) {
    return new RangeCopyAgent(
        LEARNER, requests, history, initial, () -> 1L, copier, Duration.ofSeconds(10));
  }

  @Test
  void aCopyThatFailsFromEveryVoter_isRecordedFailed_withTheLastReason() throws Exception {
    List<Integer> tried = new CopyOnWriteArrayList<>();
    RangeCopier failing =
        (source, from, to) -> {
          tried.add(source);
          return CompletableFuture.failedFuture(
              new IllegalStateException("disk of node " + source + " unreadable"));
        };
    try (RangeCopyAgent agent = agent(failing)) {
      agent.start();
      requests.ask(1, LEARNER, 0);
      Request outcome = awaitAnswered(0);
      assertEquals(State.FAILED, outcome.state(), outcome.toString());
      assertTrue(outcome.reason().contains("unreadable"), outcome.reason());
      awaitCount(agent::failed, 1, "failed copies");
      assertEquals(0, agent.completed());
      assertEquals(RangeCopyAgent.ROUNDS * 3, tried.size(), "every voter, every round: " + tried);
    }
    // The orchestrator's wait for the copies stops the change there: it never moves on to the
    // version where the learner votes.
    LearnerCopies.CopyFailedException stopped =
        org.junit.jupiter.api.Assertions.assertThrows(
            LearnerCopies.CopyFailedException.class,
            () ->
                new LearnerCopies(requests)
                    .copy(
                        1,
                        List.of(new MembershipPlan.Incoming(0, LEARNER, 1)),
                        WAIT,
                        MembershipOrchestrator.Stop.NEVER));
    assertTrue(stopped.getMessage().contains("stops at ring version 1"), stopped.getMessage());
  }

  @Test
  void aVoterThatIsNotRegistered_isTriedLast() throws Exception {
    List<Integer> tried = new CopyOnWriteArrayList<>();
    RangeCopier any =
        (source, from, to) -> {
          tried.add(source);
          return CompletableFuture.completedFuture(null);
        };
    // Node 1, the range's first voter, is dead (a node being replaced): not registered.
    try (RangeCopyAgent agent =
        new RangeCopyAgent(
            LEARNER,
            requests,
            history,
            initial,
            () -> 1L,
            any,
            Duration.ofSeconds(10),
            id -> id != 1)) {
      agent.start();
      requests.ask(1, LEARNER, 0);
      assertEquals(State.DONE, awaitAnswered(0).state());
      assertEquals(List.of(2), tried, "a registered voter first");
    }
  }

  @Test
  void aCopyDoneWithData_sparesTheLearnerSettle_oneDoneWithout_doesNot() throws Exception {
    try (RangeCopyAgent agent = agent(RangeCopier.none())) {
      agent.start();
      requests.ask(1, LEARNER, 0);
      Request outcome = awaitAnswered(0);
      assertEquals(State.DONE, outcome.state());
      assertFalse(outcome.placedData(), "a copier that copies nothing says so: " + outcome);
      assertTrue(outcome.reason().contains("copyOnJoin"), outcome.reason());
    }
    List<MembershipPlan.Incoming> incoming = List.of(new MembershipPlan.Incoming(0, LEARNER, 1));
    assertEquals(
        Set.of(),
        new LearnerCopies(requests).copy(1, incoming, WAIT, MembershipOrchestrator.Stop.NEVER),
        "range 0 was not copied with data: its learner step is settled");

    requests.answer(requests.get(1, LEARNER, 0, null).done());
    assertEquals(
        Set.of(0),
        new LearnerCopies(requests).copy(1, incoming, WAIT, MembershipOrchestrator.Stop.NEVER));
  }

  @Test
  void aRoundInWhichEveryVoterFailed_isFollowedByAnother_thatMayComplete() throws Exception {
    List<Integer> tried = new CopyOnWriteArrayList<>();
    RangeCopier backAfterARound =
        (source, from, to) -> {
          tried.add(source);
          return tried.size() <= 3
              ? CompletableFuture.failedFuture(new IllegalStateException("restarting"))
              : CompletableFuture.completedFuture(null);
        };
    try (RangeCopyAgent agent = agent(backAfterARound)) {
      agent.start();
      requests.ask(1, LEARNER, 0);
      Request outcome = awaitAnswered(0);
      assertEquals(State.DONE, outcome.state(), outcome.toString());
      assertTrue(outcome.placedData());
      assertEquals(List.of(1, 2, 3, 1), tried, "a second round, from the first voter again");
    }
  }

  @Test
  void aVoterThatFails_isLeftForTheNextOne_andTheCopyCompletes() throws Exception {
    List<Integer> tried = new CopyOnWriteArrayList<>();
    RangeCopier firstVoterDown =
        (source, from, to) -> {
          tried.add(source);
          return source == 1
              ? CompletableFuture.failedFuture(new IllegalStateException("node 1 is down"))
              : CompletableFuture.completedFuture(null);
        };
    try (RangeCopyAgent agent = agent(firstVoterDown)) {
      agent.start();
      requests.ask(1, LEARNER, 0);
      assertEquals(State.DONE, awaitAnswered(0).state());
      assertEquals(List.of(1, 2), tried, "the first voter first, then the next");
      awaitCount(agent::completed, 1, "completed copies");
    }
  }

  @Test
  void aRequestForARangeThisNodeIsNoLearnerOf_isRefusedAndLeftOpen() throws Exception {
    List<Integer> tried = new CopyOnWriteArrayList<>();
    RangeCopier recording =
        (source, from, to) -> {
          tried.add(source);
          return CompletableFuture.completedFuture(null);
        };
    try (RangeCopyAgent agent = agent(recording)) {
      agent.start();
      requests.ask(1, LEARNER, 1); // range 1 has no learner at version 1
      long deadline = System.nanoTime() + WAIT.toNanos();
      while (agent.refused() == 0) {
        assertTrue(System.nanoTime() < deadline, "the request was refused in time");
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
      assertEquals(State.OPEN, requests.get(1, LEARNER, 1, null).state());
      assertEquals(List.of(), tried, "nothing copied");
    }
  }

  /**
   * Waits until {@code count} reaches {@code expected}: the agent counts an outcome just after it
   * wrote it into the request, so a reader of the request may see it first.
   */
  private static void awaitCount(LongSupplier count, long expected, String what) {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (count.getAsLong() != expected) {
      assertTrue(System.nanoTime() < deadline, what + ": " + count.getAsLong() + " != " + expected);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }

  private Request awaitAnswered(int range) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (true) {
      Request r = requests.get(1, LEARNER, range, null);
      if (r != null && r.state() != State.OPEN) {
        return r;
      }
      assertTrue(System.nanoTime() < deadline, "the copy request was answered in time: " + r);
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
