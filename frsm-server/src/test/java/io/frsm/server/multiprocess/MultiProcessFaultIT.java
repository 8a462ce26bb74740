package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.assertLinearizable;
import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.observer;
import static io.frsm.server.multiprocess.MultiProcessSupport.runFor;
import static io.frsm.server.multiprocess.MultiProcessSupport.writeHistory;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.node.FaultControlFile;
import io.frsm.server.node.ZooKeeperProxy;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.ZkLayout;
import io.frsm.testkit.history.Bytes;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.Operation;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The seeded multi-process fault suite (issue 27): three node processes ({@link FaultyNodeMain
 * io.frsm.server.node.FaultyNodeMain}: the node of {@code frsm server}, its peer links and wall
 * clock driven by a fault control file), each reaching the embedded ZooKeeper through a proxy of
 * its own, under the Appendix C counter load plus gets and creates/deletes. A seed deals every
 * fault kind of {@link Fault.Kind} in a random order, with random lengths and victims: {@code kill
 * -9} (leader, follower, two at once), SIGSTOP of the leader longer than the lease, partitions
 * (leader from one follower, leader from both peers but not ZooKeeper, one-way drops, leader from
 * ZooKeeper only), a ZooKeeper restart, and clock skew within and beyond ε.
 *
 * <p>For each fault the longest time a counter key went without an answer is printed and checked
 * against {@link Fault#bound}. At the end the history (written first, under {@code
 * target/histories/}) must be linearizable and every counter must equal the increments that took
 * effect. Seeds: {@code -Dfrsm.faults.seeds=1,2,3} (default: one fresh one, printed — every fault
 * kind is dealt once per seed, so CI plays each kind once in a new order each run; more seeds are a
 * local or nightly run); {@code -Dfrsm.faults.rounds=N} plays only the first N faults of each
 * seed's deal, {@code -Dfrsm.faults.kinds=PAUSE_LEADER,ISOLATE_LEADER} deals only those kinds.
 *
 * <p>The first fault waits until every counter's range has its first term at its preferred leader.
 * {@code -Dfrsm.faults.settle=false} starts faulting while the cluster still forms: a natural
 * leader cut off then had no term to hand over, and (before term bumps ran all at once) its
 * stand-ins took its ranges one at a time, about 0.25 s each on the 2-CPU test machine, so the last
 * of its ranges answered only after about 4 s (seed 52164263854741: 5.6 s on the hot counter for a
 * 4.7 s one-way cut).
 *
 * <p>ZooKeeper, its proxies and the clients run in this JVM: a stall of it is measured ({@link
 * HarnessStalls}), printed, and exempts the fault it overlaps from its bound.
 */
@MultiProcess
class MultiProcessFaultIT {
  private static final String CLUSTER_ID = "fault-cluster";
  private static final int NODES = 3;
  private static final int COUNTERS = 3;
  private static final int HOT_COUNTER = 0;
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(2);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration EPSILON = Duration.ofMillis(250); // the node's default
  private static final Fault.Timings TIMINGS =
      new Fault.Timings(
          Duration.ofSeconds(2), SESSION_TIMEOUT, Duration.ofSeconds(1), Duration.ofSeconds(2));
  private static final Duration READY_DEADLINE = Duration.ofSeconds(40);
  private static final Duration RECOVERY_DEADLINE = Duration.ofSeconds(60);
  private static final Path NODE_OUTPUT = Path.of("target", "multiprocess");

  /** LeaseKeeper's line when a node's ZooKeeper connection came back (RECONNECTED). */
  private static final String ZOOKEEPER_BACK = "ZooKeeper connection back";

  /** LeaseKeeper's lines for SUSPENDED, LOST and RECONNECTED: the last one says where it is. */
  private static final List<String> ZOOKEEPER_CONNECTION_LINES =
      List.of("ZooKeeper connection suspended", "ZooKeeper session LOST", ZOOKEEPER_BACK);

  /**
   * A stall of the test JVM this long within a fault's window exempts the fault's gap from its
   * bound ({@link HarnessStalls}): a third of the nodes' ZooKeeper session, enough to delay their
   * pings past it together with the fault's own.
   */
  private static final Duration HARNESS_STALL_EXCUSE = Duration.ofSeconds(1);

  private final HarnessStalls stalls = new HarnessStalls();

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final List<NodeProcess> nodes = new ArrayList<>();
  private final List<ZooKeeperProxy> proxies = new ArrayList<>();
  private final List<Path> controls = new ArrayList<>();
  private EmbeddedZooKeeper zookeeper;
  private Path zookeeperDir;

  static Stream<Long> seeds() {
    String given = System.getProperty("frsm.faults.seeds", "");
    if (!given.isBlank()) {
      return Arrays.stream(given.split(",")).map(String::strip).map(Long::parseLong);
    }
    return LongStream.of(System.nanoTime()).boxed();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void seededFaults_keepHistoryLinearizable_countersExact_andGapsBounded(
      long seed, @TempDir Path dir) throws Exception {
    String replay =
        "replay: ./mvnw -B -q -ntp -pl frsm-server -am verify -Dtest=NONE"
            + " -Dit.test=MultiProcessFaultIT -Dsurefire.failIfNoSpecifiedTests=false"
            + " -Dfailsafe.failIfNoSpecifiedTests=false -Dfrsm.faults.seeds="
            + seed
            + replayOptions();
    System.out.println("multi-process faults: seed " + seed + " (" + replay + ")");
    SplittableRandom random = new SplittableRandom(seed);
    List<Fault> schedule = deal(random);
    System.out.println("schedule: " + schedule);
    Path history = Path.of("target", "histories", "multi-process-faults-" + seed + ".jsonl");
    Thread killAll = new Thread(this::killAll, "fault-it-kill-nodes");
    Runtime.getRuntime().addShutdownHook(killAll);
    ClusterCertificates certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
    zookeeperDir = dir.resolve("zk");
    zookeeper = EmbeddedZooKeeper.startUnsynced(zookeeperDir, EmbeddedZooKeeper.freeLoopbackPort());
    int zookeeperPort = zookeeper.port();
    FaultLoad load = null;
    List<String> outOfBounds = new ArrayList<>();
    try (CuratorFramework zk = observer(zookeeper.connectString(), certs.reader());
        RecordingClient client =
            new RecordingClient(recorder, () -> thinClient(certs, zookeeperPort))) {
      MembershipRegistry registry = new MembershipRegistry(zk, new ZkLayout(CLUSTER_ID));
      ClusterView view = new ClusterView(zk, registry, CLUSTER_ID);
      try {
        startNodes(dir, seed, certs, zookeeperPort, registry);
        List<byte[]> counterKeys = new ArrayList<>();
        for (int i = 0; i < COUNTERS; i++) {
          counterKeys.add(("fault-counter-" + i).getBytes(US_ASCII));
        }
        List<Bytes> measured = counterKeys.stream().map(Bytes::of).toList();
        CounterCheck check = new CounterCheck(client, COUNTERS, "fault");
        load = new FaultLoad(client, check, counterKeys, HOT_COUNTER);
        long loadStarted = System.nanoTime();
        load.start();
        FaultLoad running = load;
        FaultInjector injector =
            new FaultInjector(
                nodes,
                proxies,
                controls,
                EPSILON,
                new FaultInjector.Harness() {
                  @Override
                  public void runFor(Duration d) {
                    MultiProcessSupport.runFor(d, running);
                  }

                  @Override
                  public void awaitServing(NodeProcess n) {
                    MultiProcessFaultIT.this.awaitServing(n);
                  }

                  @Override
                  public String restartZooKeeper(Duration down) throws Exception {
                    return MultiProcessFaultIT.this.restartZooKeeper(down, running);
                  }
                });
        if (Boolean.parseBoolean(System.getProperty("frsm.faults.settle", "true"))) {
          // Faults start once every counter's range has its first term at its preferred leader:
          // a cut during the cluster's formation is a case of its own (see the class comment).
          awaitCondition(
              () -> settled(view, counterKeys),
              RECOVERY_DEADLINE,
              "every counter's range to settle");
        }
        // Faults start once the load runs: its clients start on threads of their own, which on
        // a loaded machine took 19 s (seed 2, 2026-11-27: its first fault, a cut, was over before
        // the load's first call, and counted as a 9.9 s gap).
        awaitCondition(
            () -> answeredSince(measured, loadStarted) || !running.stillRunning(),
            RECOVERY_DEADLINE,
            "the load's first answer on every counter");
        running.throwFailures();
        for (int i = 0; i < schedule.size(); i++) {
          Fault fault = schedule.get(i);
          runFor(Duration.ofMillis(random.nextLong(300, 801)), running);
          int leader = view.leader(counterKeys.get(HOT_COUNTER));
          long start = System.nanoTime();
          long before = check.incrementsTookEffect();
          String victims = injector.inject(fault, leader);
          long healed = System.nanoTime();
          awaitCondition(
              () -> answeredSince(measured, healed) || !running.stillRunning(),
              RECOVERY_DEADLINE,
              "an answer on every counter after healing " + fault);
          long answered = System.nanoTime();
          running.throwFailures();
          // The fault is over once every node hears ZooKeeper again, not at the first answers: a
          // node cut from ZooKeeper notices only after its read timeout (2/3·S) and dials again
          // 1-2 s later, so a next fault started meanwhile (seed 2: a restart 0.3-0.8 s after a
          // 2.4 s cut's heal) met a node still SUSPENDED, and its client gave the session up
          // (docs/PROTOCOL.md "Who declares a session lost"). What that costs is this fault's.
          awaitCondition(
              () -> allHearZooKeeper() || !running.stillRunning(),
              RECOVERY_DEADLINE,
              "every node connected to ZooKeeper after healing " + fault);
          long zooKeeperBack = System.nanoTime();
          running.throwFailures();
          long end = System.nanoTime();
          List<Operation> recorded = recorder.history();
          Unavailability.Gap hot =
              Unavailability.longest(recorded, List.of(measured.get(HOT_COUNTER)), start, end);
          Unavailability.Gap any = Unavailability.longest(recorded, measured, start, end);
          Duration bound = fault.bound(TIMINGS, injector.lastRestart());
          String line =
              String.format(
                  "fault %d/%d %s on %s (hot counter's leader: node %d): longest gap on the hot"
                      + " counter %d ms (bound %d ms), on any counter %d ms (%s); answers on every"
                      + " counter %d ms after the heal, every node connected to ZooKeeper %d ms"
                      + " after it; %d increments meanwhile",
                  i + 1,
                  schedule.size(),
                  fault,
                  victims,
                  leader,
                  hot.millis(),
                  bound.toMillis(),
                  any.millis(),
                  any.key(),
                  TimeUnit.NANOSECONDS.toMillis(answered - healed),
                  TimeUnit.NANOSECONDS.toMillis(zooKeeperBack - healed),
                  check.incrementsTookEffect() - before);
          long stalled = stalls.longestNanos(start, end);
          if (stalled >= HARNESS_STALL_EXCUSE.toNanos()) {
            // ZooKeeper and the clients did not run: a fault the suite did not mean to play.
            line +=
                String.format(
                    "; the test JVM (ZooKeeper, proxies, clients) stalled %d ms in the window: the"
                        + " bound is not applied",
                    TimeUnit.NANOSECONDS.toMillis(stalled));
          } else if (hot.nanos() > bound.toNanos()) {
            outOfBounds.add(line);
          }
          System.out.println(line);
        }
        runFor(Duration.ofSeconds(1), running);
        List<String> stuck = load.stop();
        assertTrue(stuck.isEmpty(), () -> "load threads did not stop: " + stuck);
        load.throwFailures();
        List<String> problems = check.verify();
        writeHistory(recorder, history);
        assertTrue(problems.isEmpty(), () -> "counters disagree: " + problems + "; " + replay);
        checkHistory(history, replay);
        assertTrue(
            outOfBounds.isEmpty(),
            () -> "unavailability beyond its bound: " + outOfBounds + "; " + replay);
        System.out.printf(
            "multi-process faults (seed %d): %d faults, %d increments took effect, %d unknown"
                + " outcomes resolved by fence, %d not executed, %d creates+deletes, %d client"
                + " errors, %d operations recorded%n",
            seed,
            schedule.size(),
            check.incrementsTookEffect(),
            check.unknownOutcomesResolved(),
            check.notExecuted(),
            load.createsDeleted(),
            load.clientErrors(),
            recorder.history().size());
      } catch (Throwable e) {
        if (load != null) {
          load.stop();
        }
        try {
          writeHistory(recorder, history);
        } catch (Exception | Error writeFailed) {
          e.addSuppressed(writeFailed);
        }
        System.err.println(
            "multi-process faults failed (seed "
                + seed
                + "; "
                + replay
                + "; history "
                + history
                + "); node output:");
        for (NodeProcess n : nodes) {
          System.err.println(n.outputTail(40));
        }
        throw new AssertionError("seed " + seed + " failed (" + replay + ")", e);
      } finally {
        if (load != null) {
          load.stop();
        }
        client.close();
        killAll();
        registry.close();
      }
    } finally {
      killAll();
      proxies.forEach(ZooKeeperProxy::close);
      zookeeper.close();
      stalls.close();
      Runtime.getRuntime().removeShutdownHook(killAll);
    }
  }

  /** The suite's other properties, as this run was given them. */
  private static String replayOptions() {
    StringBuilder options = new StringBuilder();
    for (String p : List.of("frsm.faults.kinds", "frsm.faults.rounds", "frsm.faults.settle")) {
      String v = System.getProperty(p);
      if (v != null && !v.isBlank()) {
        options.append(" -D").append(p).append('=').append(v);
      }
    }
    return options.toString();
  }

  /** Every fault kind once, in the seed's order, each with its length and choices drawn. */
  private static List<Fault> deal(SplittableRandom random) {
    List<Fault.Kind> kinds = new ArrayList<>(EnumSet.allOf(Fault.Kind.class));
    String only = System.getProperty("frsm.faults.kinds", "");
    if (!only.isBlank()) {
      kinds =
          new ArrayList<>(
              Arrays.stream(only.split(",")).map(String::strip).map(Fault.Kind::valueOf).toList());
    }
    for (int i = kinds.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      Fault.Kind k = kinds.get(i);
      kinds.set(i, kinds.get(j));
      kinds.set(j, k);
    }
    int rounds = Integer.getInteger("frsm.faults.rounds", kinds.size());
    List<Fault> faults = new ArrayList<>();
    for (Fault.Kind k : kinds.subList(0, Math.min(rounds, kinds.size()))) {
      faults.add(Fault.draw(k, random));
    }
    return faults;
  }

  /** Stops ZooKeeper for {@code down}, then starts it again on its port and data. */
  private String restartZooKeeper(Duration down, FaultLoad load) throws Exception {
    int port = zookeeper.port();
    long stopped = System.nanoTime();
    zookeeper.close();
    runFor(down, load);
    zookeeper = EmbeddedZooKeeper.startUnsynced(zookeeperDir, port);
    // The outage the nodes see: the fault's length plus ZooKeeper's own start.
    return "ZooKeeper (down "
        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped)
        + " ms until it answered again)";
  }

  private void startNodes(
      Path dir,
      long seed,
      ClusterCertificates certs,
      int zookeeperPort,
      MembershipRegistry registry)
      throws Exception {
    // Each node reaches ZooKeeper through a proxy of its own (viaZooKeeper below).
    NodeProcess.Cluster cluster =
        new NodeProcess.Cluster(
            dir,
            NODE_OUTPUT.resolve("faults-" + seed),
            "",
            SESSION_TIMEOUT,
            BOUNDED_DELAY,
            certs,
            processes);
    for (int id = 1; id <= NODES; id++) {
      ZooKeeperProxy proxy = new ZooKeeperProxy(zookeeperPort);
      proxies.add(proxy);
      Path control = dir.resolve("faults-node-" + id);
      FaultControlFile.write(control, "");
      controls.add(control);
      nodes.add(cluster.viaZooKeeper(proxy.connectString()).node(id).withFaultControl(control));
    }
    for (NodeProcess n : nodes) {
      n.start();
    }
    for (NodeProcess n : nodes) {
      awaitServing(n);
    }
  }

  private static boolean settled(ClusterView view, List<byte[]> keys) {
    try {
      for (byte[] key : keys) {
        long[] term = view.term(key);
        if (term[0] == 0 || term[1] != view.natural(key)) {
          return false;
        }
      }
      return true;
    } catch (Exception e) {
      return false; // ZooKeeper busy: ask again
    }
  }

  /**
   * Whether every node's ZooKeeper client is connected: the last of its keeper's connection lines
   * (LeaseKeeper) says the connection is back, or it logged none in this incarnation.
   */
  private boolean allHearZooKeeper() {
    for (NodeProcess n : nodes) {
      String last = n.lastLineContainingAny(ZOOKEEPER_CONNECTION_LINES);
      if (last != null && !last.contains(ZOOKEEPER_BACK)) {
        return false;
      }
    }
    return true;
  }

  /** Whether every key has an answer that came back after {@code sinceNanos}. */
  private boolean answeredSince(List<Bytes> keys, long sinceNanos) {
    List<Bytes> missing = new ArrayList<>(keys);
    List<Operation> history = recorder.history();
    for (int i = history.size() - 1; i >= 0 && !missing.isEmpty(); i--) {
      Operation op = history.get(i);
      if (op.returnNanos() > sinceNanos && Unavailability.answered(op.output())) {
        missing.remove(op.key());
      }
    }
    return missing.isEmpty();
  }

  private void awaitServing(NodeProcess n) {
    MultiProcessSupport.awaitServing(n, READY_DEADLINE);
  }

  private void checkHistory(Path history, String replay) {
    // Thin clients leave τ to the node (arrival): an unknown outcome takes effect at the latest T
    // after arrival by the node's clock, and a request arrives within the client timeout of its
    // call. Skew beyond ε moves a node's T by up to 4ε: the bound allows it.
    long bound =
        BOUNDED_DELAY
            .plus(CLIENT_TIMEOUT)
            .plus(EPSILON.multipliedBy(4))
            .plus(Duration.ofSeconds(1))
            .toNanos();
    assertLinearizable(recorder, bound, history, replay);
  }

  private void killAll() {
    MultiProcessSupport.killAll(processes);
  }

  private static FrsmClient thinClient(ClusterCertificates certs, int zookeeperPort) {
    return MultiProcessSupport.thinClient(certs, "127.0.0.1:" + zookeeperPort, CLIENT_TIMEOUT);
  }
}
