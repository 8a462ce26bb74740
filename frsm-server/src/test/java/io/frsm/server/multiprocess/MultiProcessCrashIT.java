package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.observer;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.cell.Key;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeTermStore;
import io.frsm.server.zk.ZkLayout;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.LinearizabilityChecker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper's Appendix C test against three node processes: an embedded ZooKeeper in this JVM and
 * three child JVMs running {@code frsm server --config <yaml>} on loopback. Thin clients in this
 * JVM CAS-increment a few counters from several threads while the test {@code kill -9}s a node,
 * lets the survivors carry on, restarts it on its directories and waits until it serves again.
 *
 * <p>The fault schedule comes from one seed, printed at the start and settable with {@code
 * -Dfrsm.multiprocess.seed=<seed>}: in each round the victim is the leader of the hot counter's
 * range or one of its followers, at random, and how long the cluster runs before the kill and how
 * long the victim stays down are drawn at random too. (The workload's own timing is not replayed:
 * the same seed gives the same schedule, not the same interleaving.)
 *
 * <p>The seed also draws the cluster's hand-off mode ({@code consensus.handOff}, docs/PROTOCOL.md
 * "Hand-off instead of a scan"; force it with {@code -Dfrsm.multiprocess.handOff=on|off}), from a
 * stream of its own so that the kill schedule of a seed is the same in both modes. With hand-off on
 * the absence limit is {@link #HAND_OFF_MAX_ABSENCE}, inside the drawn downtimes, so a returning
 * killed node meets both the import on its entry base (docs/PROTOCOL.md "A killed holder: covering
 * its term": when the stand-in's shipment covers the killed term) or its fall-back (refused: no
 * entry base recorded, or a shipment covering nothing) and the hand-back declined for the absence —
 * and each round's victim is stopped gracefully ({@code kill -TERM}: it drains and hands its ranges
 * over, and imports them back after the restart) or killed, at random. Either way nothing may be
 * lost or doubled.
 *
 * <p>{@link CounterCheck} resolves unknown outcomes with {@code fence}. At the end every counter
 * equals the increments that took effect (none lost, none doubled) and the recorded history is
 * linearizable. The history is written as JSON lines under {@code target/histories/} before either
 * is checked, and also when the run fails earlier, so a failing run leaves its evidence. Node
 * output goes to {@code target/multiprocess/}.
 */
@MultiProcess
class MultiProcessCrashIT {
  /** The test's CA, client certificate and ZooKeeper credentials (the nodes run mutual TLS). */
  private ClusterCertificates certs;

  private static final String CLUSTER_ID = "mp-cluster";
  private static final int NODES = 3;
  private static final int COUNTERS = 3;
  private static final int HOT_COUNTER = 0;
  private static final int WORKERS = 4;
  private static final int KILLS = 4;
  private static final long PHASE_INCREMENTS = 25;

  /** How long the cluster runs before a kill, drawn per round (after the last victim serves). */
  private static final Duration UP_MIN = Duration.ofMillis(500);

  private static final Duration UP_MAX = Duration.ofMillis(2_500);

  /**
   * How long a victim stays down, drawn per round: shorter than its session timeout (it restarts
   * before the cluster noticed, and registers once its old session expired) or longer (a dead
   * leader's range moves to another node first).
   */
  private static final Duration DOWN_MIN = Duration.ofMillis(500);

  private static final Duration DOWN_MAX = Duration.ofMillis(6_000);

  /** The absence limit with hand-off on: inside [DOWN_MIN, DOWN_MAX], so both sides are drawn. */
  private static final Duration HAND_OFF_MAX_ABSENCE = Duration.ofSeconds(2);

  /** How long a graceful stop may take: its drain, hand-offs and base records are each bounded. */
  private static final Duration STOP_DEADLINE = Duration.ofSeconds(60);

  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(2);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration PHASE_DEADLINE = Duration.ofSeconds(30);
  private static final Duration READY_DEADLINE = Duration.ofSeconds(30);
  private static final Path HISTORY = Path.of("target", "histories", "multi-process-crash.jsonl");
  private static final Path NODE_OUTPUT = Path.of("target", "multiprocess");

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> workerFailures = new ConcurrentLinkedQueue<>();
  private volatile boolean historyWritten;

  @Test
  void killedNodeProcesses_restartOnTheirDirectories_andNoIncrementIsLostOrDoubled(
      @TempDir Path dir) throws Exception {
    // Replay a failed run's fault schedule with -Dfrsm.multiprocess.seed=<seed>.
    long seed = Long.getLong("frsm.multiprocess.seed", System.nanoTime());
    SplittableRandom schedule = new SplittableRandom(seed);
    // The mode and the graceful stops from a stream of their own: a seed's kills stay the same.
    SplittableRandom modes = new SplittableRandom(~seed);
    String forced = System.getProperty("frsm.multiprocess.handOff", "");
    boolean handOff = forced.isEmpty() ? modes.nextBoolean() : forced.equals("on");
    System.out.printf(
        "multi-process crash: seed %d (replay the schedule with -Dfrsm.multiprocess.seed=%d),"
            + " hand-off %s%n",
        seed, seed, handOff ? "on" : "off");
    certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
    Thread killAll = new Thread(this::killAll, "multiprocess-it-kill-nodes");
    Runtime.getRuntime().addShutdownHook(killAll);
    List<Thread> workers = new ArrayList<>();
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        CuratorFramework zk = observer(zookeeper.connectString(), certs.reader());
        RecordingClient client =
            new RecordingClient(recorder, () -> thinClient(zookeeper.connectString()))) {
      NodeProcess.Cluster cluster =
          new NodeProcess.Cluster(
              dir,
              NODE_OUTPUT.resolve("run-" + seed),
              zookeeper.connectString(),
              SESSION_TIMEOUT,
              BOUNDED_DELAY,
              certs,
              processes);
      for (int id = 1; id <= NODES; id++) {
        NodeProcess n = cluster.node(id);
        if (handOff) {
          n.withConsensusSettings(
              List.of(
                  "handOff: true", "handOffMaxAbsence: " + HAND_OFF_MAX_ABSENCE.toMillis() + "ms"));
        }
        nodes.add(n);
      }
      MembershipRegistry registry = new MembershipRegistry(zk, new ZkLayout(CLUSTER_ID));
      try {
        for (NodeProcess n : nodes) {
          n.start();
        }
        for (NodeProcess n : nodes) {
          awaitServing(n, registry);
        }

        CounterCheck check = new CounterCheck(client, COUNTERS, "mp");
        for (int w = 0; w < WORKERS; w++) {
          int clientId = w;
          Thread t =
              new Thread(
                  () -> {
                    try {
                      work(check, clientId, new SplittableRandom(seed + clientId));
                    } catch (Throwable e) {
                      workerFailures.add(e);
                    }
                  },
                  "increments-" + w);
          t.setDaemon(true); // never keeps the JVM alive, whatever happens to the cluster
          workers.add(t);
          t.start();
        }

        int leaderKills = 0;
        int gracefulStops = 0;
        for (int round = 0; round < KILLS; round++) {
          Duration up = between(schedule, UP_MIN, UP_MAX);
          boolean killLeader = schedule.nextBoolean();
          Duration down = between(schedule, DOWN_MIN, DOWN_MAX);
          runFor(up, () -> {});
          int leader = currentLeader(zk, registry, hotKey());
          NodeProcess victim = killLeader ? node(leader) : follower(leader, schedule);
          if (killLeader) {
            leaderKills++;
          }
          long termBefore = term(zk, hotKey())[0];
          boolean graceful = handOff && modes.nextBoolean();
          if (graceful) {
            int exit = victim.stop(STOP_DEADLINE);
            gracefulStops++;
            String stopped = victim.lastLineContaining("stopping:");
            System.out.printf(
                "round %d: node %d stopped gracefully: %s%n", round, victim.nodeId(), stopped);
            assertEquals(
                143, exit, "exit status of a stop by SIGTERM (128 + 15); " + victim.outputTail(40));
            assertTrue(stopped != null, "no stop summary logged; " + victim.outputTail(40));
          } else {
            victim.kill(Duration.ofSeconds(10));
          }
          long killedAt = System.nanoTime();
          long atKill = check.incrementsTookEffect();
          System.out.printf(
              "round %d: %s node %d (%s of the hot counter) after %d ms up, at %d increments;"
                  + " down for %d ms%n",
              round,
              graceful ? "stopped" : "killed",
              victim.nodeId(),
              killLeader ? "leader" : "follower",
              up.toMillis(),
              atKill,
              down.toMillis());
          // The two survivors are a quorum: increments go on while the node is down (on the hot
          // counter once ZooKeeper expired a dead leader's session and its successor waited out
          // the lease).
          long[] moved = {-1, -1}; // when (ms after the kill) and to which node the range moved
          runFor(
              down,
              () -> {
                if (killLeader && moved[0] < 0) {
                  long[] t = term(zk, hotKey());
                  if (t[0] > termBefore && t[1] != victim.nodeId()) {
                    moved[0] = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt);
                    moved[1] = t[1];
                  }
                }
              });
          if (killLeader) {
            System.out.println(
                moved[0] >= 0
                    ? String.format(
                        "round %d: node %d took the hot counter's range %d ms after the kill -9"
                            + " (session timeout %d ms; writes resume L*(1+rho) later)",
                        round, moved[1], moved[0], SESSION_TIMEOUT.toMillis())
                    : String.format(
                        "round %d: the hot counter's range had not moved when the node restarted"
                            + " (its session outlived the downtime)",
                        round));
          }
          victim.start();
          awaitServing(victim, registry);
          System.out.printf(
              "round %d: node %d serves again; %d increments took effect while it was down or"
                  + " restarting%n",
              round, victim.nodeId(), check.incrementsTookEffect() - atKill);
        }
        // Whatever the schedule did, the cluster must recover and carry on.
        awaitIncrements(check, check.incrementsTookEffect() + PHASE_INCREMENTS);
        stopWorkers(workers);

        List<String> problems = check.verify();
        writeHistory(); // the evidence first: a failing check below leaves it behind
        assertTrue(problems.isEmpty(), () -> "counters disagree: " + problems + "; " + evidence());
        checkHistory();
        System.out.printf(
            "multi-process crash (seed %d, hand-off %s): %d kills (%d of the hot counter's leader,"
                + " %d of them graceful stops), %d increments took effect, %d unknown outcomes"
                + " resolved by fence, %d not executed, %d operations recorded%n",
            seed,
            handOff ? "on" : "off",
            KILLS,
            leaderKills,
            gracefulStops,
            check.incrementsTookEffect(),
            check.unknownOutcomesResolved(),
            check.notExecuted(),
            recorder.history().size());
      } catch (Throwable e) {
        if (!historyWritten) {
          try {
            writeHistory(); // what was recorded up to the failure; open operations as unknown
          } catch (Exception | Error writeFailed) {
            e.addSuppressed(writeFailed);
          }
        }
        System.err.println(
            "multi-process crash test failed (seed "
                + seed
                + "; "
                + evidence()
                + "); node output:");
        for (NodeProcess n : nodes) {
          System.err.println(n.outputTail(40));
        }
        throw e;
      } finally {
        // Workers first, while the nodes still answer their last operations; then the clients, so
        // they do not keep dialling the nodes about to die.
        stop.set(true);
        joinWorkers(workers);
        client.close();
        killAll();
        registry.close();
      }
    } finally {
      killAll();
      Runtime.getRuntime().removeShutdownHook(killAll);
    }
  }

  private void work(CounterCheck check, int clientId, SplittableRandom random) {
    for (long seq = 0; !stop.get(); seq++) {
      // Half of the increments go to the hot counter: its natural leader matters most.
      int counter = random.nextBoolean() ? HOT_COUNTER : random.nextInt(COUNTERS);
      try {
        check.incrementOnce(counter, clientId, seq);
      } catch (FrsmException e) {
        if (!stop.get()) {
          throw e;
        }
      }
    }
  }

  private static byte[] hotKey() {
    // CounterCheck's key of counter HOT_COUNTER with prefix "mp".
    return ("mp-counter-" + HOT_COUNTER).getBytes(US_ASCII);
  }

  private NodeProcess node(int nodeId) {
    return nodes.get(nodeId - 1);
  }

  private NodeProcess follower(int leader, SplittableRandom random) {
    List<NodeProcess> followers = nodes.stream().filter(n -> n.nodeId() != leader).toList();
    return followers.get(random.nextInt(followers.size()));
  }

  /**
   * The node that holds {@code key}'s range term, if live; else the first live replica in ring
   * order, as thin clients route it.
   */
  private static int currentLeader(CuratorFramework zk, MembershipRegistry registry, byte[] key)
      throws Exception {
    long[] t = term(zk, key);
    if (t[0] > 0 && live(registry).contains((int) t[1])) {
      return (int) t[1];
    }
    ClusterMembers view = new ClusterMembers();
    view.update(registry.members());
    view.shape(ClusterShape.read(zk, new ZkLayout(CLUSTER_ID)));
    return view.route(Key.of(key)).get(0);
  }

  /** {@code key}'s range term and its holder in ZooKeeper ({0, -1} before any). */
  private static long[] term(CuratorFramework zk, byte[] key) {
    try {
      ZkLayout layout = new ZkLayout(CLUSTER_ID);
      int range = ClusterShape.read(zk, layout).ring().rangeIndexOf(Key.of(key).token());
      return new RangeTermStore(zk, layout, System::nanoTime)
          .current(ZkLayout.rangeId(range))
          .orElse(new long[] {0, -1});
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Waits until the node's current incarnation serves: it logged that it serves and its member
   * record is in ZooKeeper. Its boot counter must have moved to this incarnation.
   */
  private void awaitServing(NodeProcess n, MembershipRegistry registry) {
    String serves = "node " + n.nodeId() + " serves";
    // The node may log that it serves (the cluster formed) before start() logs its boot number:
    // wait for both lines. The boot line names this incarnation, so the counter survived kill -9.
    String boot = "node " + n.nodeId() + " boot " + n.incarnation() + " started";
    awaitCondition(
        () -> {
          if (!n.isAlive()) {
            fail("node " + n.nodeId() + " exited while starting");
          }
          return n.outputContains(serves)
              && n.outputContains(boot)
              && live(registry).contains(n.nodeId());
        },
        READY_DEADLINE,
        "node " + n.nodeId() + " to serve as incarnation " + n.incarnation());
  }

  private static Set<Integer> live(MembershipRegistry registry) {
    try {
      return registry.members().stream().map(NodeInfo::nodeId).collect(Collectors.toSet());
    } catch (Exception e) {
      return Set.of();
    }
  }

  private void awaitIncrements(CounterCheck check, long target) {
    awaitCondition(
        () -> check.incrementsTookEffect() >= target || !workerFailures.isEmpty(),
        PHASE_DEADLINE,
        "increments to reach " + target + " (at " + check.incrementsTookEffect() + ")");
    throwWorkerFailures();
  }

  private void stopWorkers(List<Thread> workers) throws InterruptedException {
    stop.set(true);
    List<String> running = joinWorkers(workers);
    assertTrue(running.isEmpty(), () -> "workers did not stop: " + running);
    throwWorkerFailures();
  }

  /** Joins the workers for up to 30 s in all; returns the names of those still running. */
  private static List<String> joinWorkers(List<Thread> workers) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Thread t : workers) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    return workers.stream().filter(Thread::isAlive).map(Thread::getName).toList();
  }

  private void throwWorkerFailures() {
    if (!workerFailures.isEmpty()) {
      AssertionError e = new AssertionError("a client failed", workerFailures.peek());
      workerFailures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }

  private void writeHistory() throws Exception {
    MultiProcessSupport.writeHistory(recorder, HISTORY);
    historyWritten = true;
  }

  private static String evidence() {
    return "history: " + HISTORY.toAbsolutePath();
  }

  private void checkHistory() {
    var history = recorder.history();
    // Thin clients leave τ to the node (arrival): an unknown outcome takes effect at the latest
    // T after arrival, and a request arrives within the client timeout of its call.
    long bound = BOUNDED_DELAY.plus(CLIENT_TIMEOUT).plus(Duration.ofSeconds(1)).toNanos();
    CheckResult result = LinearizabilityChecker.checkBoundedFirst(history, bound);
    assertTrue(result.isLinearizable(), () -> result.explain() + "\n" + evidence());
  }

  /**
   * Lets the workload run for {@code d} (a point of the fault schedule, not a synchronization),
   * calling {@code observe} at each poll.
   */
  private void runFor(Duration d, Runnable observe) {
    long until = System.nanoTime() + d.toNanos();
    awaitCondition(
        () -> {
          observe.run();
          return System.nanoTime() - until >= 0 || !workerFailures.isEmpty();
        },
        d.plus(PHASE_DEADLINE),
        "the end of a " + d.toMillis() + " ms phase");
    throwWorkerFailures();
  }

  /** A duration drawn uniformly from [{@code min}, {@code max}], in milliseconds. */
  private static Duration between(SplittableRandom random, Duration min, Duration max) {
    return Duration.ofMillis(random.nextLong(min.toMillis(), max.toMillis() + 1));
  }

  private void killAll() {
    MultiProcessSupport.killAll(processes);
  }

  private FrsmClient thinClient(String zookeeper) {
    return MultiProcessSupport.thinClient(certs, zookeeper, CLIENT_TIMEOUT);
  }
}
