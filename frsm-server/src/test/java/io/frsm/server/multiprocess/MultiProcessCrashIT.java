package io.frsm.server.multiprocess;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.consensus.history.CheckResult;
import io.frsm.consensus.history.HistoryJsonWriter;
import io.frsm.consensus.history.HistoryRecorder;
import io.frsm.consensus.history.LinearizabilityChecker;
import io.frsm.lsm.cell.Key;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeTermStore;
import io.frsm.server.zk.ZkLayout;
import java.io.Writer;
import java.nio.file.Files;
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
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper's Appendix C test against three node processes: an embedded ZooKeeper in this JVM and
 * three child JVMs running {@code frsm server --config <yaml>} on loopback. Thin clients in this
 * JVM CAS-increment a few counters from several threads while the test {@code kill -9}s a node —
 * alternately the leader of the hot counter's range (the time until another node takes the range is
 * printed) and a follower — lets the survivors carry on, restarts it on its directories and waits
 * until it serves again. {@link CounterCheck} resolves unknown outcomes with {@code fence}. At the
 * end every counter equals the increments that took effect (none lost, none doubled) and the
 * recorded history is linearizable; it is written as JSON lines under {@code target/histories/}.
 * Node output goes to {@code target/multiprocess/}.
 */
class MultiProcessCrashIT {
  private static final String CLUSTER_ID = "mp-cluster";
  private static final int NODES = 3;
  private static final int COUNTERS = 3;
  private static final int HOT_COUNTER = 0;
  private static final int WORKERS = 4;
  private static final int KILLS = 4;
  private static final long PHASE_INCREMENTS = 25;
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

  @Test
  void killedNodeProcesses_restartOnTheirDirectories_andNoIncrementIsLostOrDoubled(
      @TempDir Path dir) throws Exception {
    // Replay a failed run's kill choices and workloads with -Dfrsm.multiprocess.seed=<seed>.
    long seed = Long.getLong("frsm.multiprocess.seed", System.nanoTime());
    SplittableRandom random = new SplittableRandom(seed);
    Thread killAll = new Thread(this::killAll, "multiprocess-it-kill-nodes");
    Runtime.getRuntime().addShutdownHook(killAll);
    List<Thread> workers = new ArrayList<>();
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"));
        CuratorFramework zk = observer(zookeeper.connectString());
        RecordingClient client =
            new RecordingClient(recorder, () -> thinClient(zookeeper.connectString()))) {
      Path output = NODE_OUTPUT.resolve("run-" + seed);
      for (int id = 1; id <= NODES; id++) {
        nodes.add(
            new NodeProcess(
                id,
                dir.resolve("node-" + id),
                output,
                zookeeper.connectString(),
                CLUSTER_ID,
                SESSION_TIMEOUT,
                BOUNDED_DELAY,
                processes));
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
        for (int round = 0; round < KILLS; round++) {
          awaitIncrements(check, check.incrementsTookEffect() + PHASE_INCREMENTS);
          int leader = currentLeader(zk, registry, hotKey());
          NodeProcess victim = round % 2 == 0 ? node(leader) : follower(leader, random);
          if (victim.nodeId() == leader) {
            leaderKills++;
          }
          long termBefore = term(zk, hotKey())[0];
          victim.kill(Duration.ofSeconds(10));
          long killedAt = System.nanoTime();
          System.out.printf(
              "round %d: killed node %d (%s of the hot counter) at %d increments%n",
              round,
              victim.nodeId(),
              victim.nodeId() == leader ? "leader" : "follower",
              check.incrementsTookEffect());
          if (victim.nodeId() == leader) {
            // kill -9: the range moves once ZooKeeper expires the dead node's session.
            awaitCondition(
                () -> {
                  long[] t = term(zk, hotKey());
                  return t[0] > termBefore && t[1] != victim.nodeId();
                },
                PHASE_DEADLINE,
                "another node to take the hot counter's range");
            System.out.printf(
                "round %d: node %d took the hot counter's range %d ms after the kill -9"
                    + " (session timeout %d ms; writes resume L*(1+rho) later)%n",
                round,
                term(zk, hotKey())[1],
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt),
                SESSION_TIMEOUT.toMillis());
          }
          // The two survivors are a quorum: increments go on while the node is down.
          awaitIncrements(check, check.incrementsTookEffect() + PHASE_INCREMENTS);
          victim.start();
          awaitServing(victim, registry);
        }
        awaitIncrements(check, check.incrementsTookEffect() + PHASE_INCREMENTS);
        stopWorkers(workers);

        List<String> problems = check.verify();
        assertTrue(problems.isEmpty(), () -> "counters disagree: " + problems);
        checkAndWriteHistory();
        System.out.printf(
            "multi-process crash (seed %d): %d kills (%d of the hot counter's natural leader),"
                + " %d increments took effect, %d unknown outcomes resolved by fence,"
                + " %d not executed, %d operations recorded%n",
            seed,
            KILLS,
            leaderKills,
            check.incrementsTookEffect(),
            check.unknownOutcomesResolved(),
            check.notExecuted(),
            recorder.history().size());
      } catch (Throwable e) {
        System.err.println("multi-process crash test failed (seed " + seed + "); node output:");
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

  private void checkAndWriteHistory() throws Exception {
    var history = recorder.history();
    Files.createDirectories(HISTORY.getParent());
    try (Writer out = Files.newBufferedWriter(HISTORY)) {
      HistoryJsonWriter.write(history, out);
    }
    // Thin clients leave τ to the node (arrival): an unknown outcome takes effect at the latest
    // T after arrival, and a request arrives within the client timeout of its call.
    long bound = BOUNDED_DELAY.plus(CLIENT_TIMEOUT).plus(Duration.ofSeconds(1)).toNanos();
    CheckResult result = LinearizabilityChecker.checkBoundedFirst(history, bound);
    assertTrue(result.isLinearizable(), () -> result.explain() + "\nhistory: " + HISTORY);
  }

  private void killAll() {
    for (Process p : processes) {
      p.toHandle().destroyForcibly();
    }
    for (Process p : processes) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static CuratorFramework observer(String connect) {
    CuratorFramework zk = CuratorFrameworkFactory.newClient(connect, new RetryOneTime(100));
    zk.start();
    return zk;
  }

  private static FrsmClient thinClient(String zookeeper) {
    return FrsmClient.builder()
        .zookeeper(zookeeper)
        .clusterId(CLUSTER_ID)
        .operationTimeout(CLIENT_TIMEOUT)
        .build();
  }

  private static void awaitCondition(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
    }
  }
}
