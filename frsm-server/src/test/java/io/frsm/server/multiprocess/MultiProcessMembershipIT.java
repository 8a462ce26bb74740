package io.frsm.server.multiprocess;

import static io.frsm.server.multiprocess.MultiProcessSupport.awaitCondition;
import static io.frsm.server.multiprocess.MultiProcessSupport.observer;
import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.FrsmClient;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.consensus.core.Placement;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.workload.CounterCheck;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.EmbeddedZooKeeper;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import io.frsm.testkit.history.HistoryRecorder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Membership changes across processes under the Appendix C counter load, with {@code kill -9}
 * (issue 22): {@code frsm server} node JVMs, an embedded ZooKeeper in this JVM, thin clients given
 * the first nodes' client addresses only, and every change requested with {@code frsm admin} run as
 * an operator runs it (a JVM of its own, {@link AdminTool}). The cluster grows 3 → 5 (nodes 4 and 5
 * start with {@code cluster.join: true} and are added), shrinks 5 → 3 (node 5, then node 1, a seed
 * of the clients, are decommissioned), and then one node whose data directory was deleted is
 * replaced by node 6. During each change one node process is killed with {@code kill -9} once the
 * change has published its learner or its promotion version, and started again on its directories:
 * a voter, the node orchestrating the change, or the incoming node. A leaving node that is killed
 * stays down (the change needs it nowhere). The load — CAS increments, gets, creates and deletes —
 * runs the whole time.
 *
 * <p>Each change must end (resumed by another node when its orchestrator died) and the load go on
 * after it; at the end the recorded history (written first, under {@code target/histories/}) must
 * be linearizable, every counter equal the increments that took effect (none lost, none doubled),
 * the ring be the last version of the last change (each change: learners, then a promotion and a
 * drop per batch of ranges, nothing else published) with three voters and no learner per range,
 * installed by every member; the retired ids — both decommissioned nodes and the wiped one — are
 * refused by the cluster and cannot start again.
 *
 * <p>The schedule (victims, the version each kill waits for, downtimes) comes from one seed,
 * printed with its replay command: {@code -Dfrsm.membership.seed=<seed>}. The workload's own timing
 * is not replayed. Node and admin output goes to {@code target/multiprocess/membership-<seed>/}.
 */
@MultiProcess
class MultiProcessMembershipIT {
  private static final String CLUSTER_ID = "membership-cluster";
  private static final int COUNTERS = 3;
  private static final int HOT_COUNTER = 0;
  private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration BOUNDED_DELAY = Duration.ofSeconds(2);
  private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration READY_DEADLINE = Duration.ofSeconds(60);
  private static final Duration CHANGE_DEADLINE = Duration.ofSeconds(150);
  private static final Duration DOWN_MIN = Duration.ofMillis(300);
  private static final Duration DOWN_MAX = Duration.ofMillis(3_000);
  private static final long INCREMENTS_AFTER_CHANGE = 10;
  private static final Path NODE_OUTPUT = Path.of("target", "multiprocess");

  /** Whom a kill during a change hits. */
  private enum Target {
    /** A voter of the ring before the change that neither leaves nor comes in. */
    VOTER,
    /** The node holding the orchestrator lock. */
    ORCHESTRATOR,
    /** The node the change brings in. */
    INCOMING
  }

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final List<Process> processes = new CopyOnWriteArrayList<>();
  private final Map<Integer, NodeProcess> nodes = new TreeMap<>();
  private final ZkLayout layout = new ZkLayout(CLUSTER_ID);
  private Path dir;
  private Path output;
  private long changeVersions; // the versions the changes published, each checked as it ended
  private ClusterCertificates certs;
  private NodeProcess.Cluster cluster;
  private CuratorFramework zk;
  private MembershipRegistry registry;
  private RingVersion initial;
  private AdminTool admin;
  private SplittableRandom schedule;
  private CounterCheck check;
  private FaultLoad load;

  @Test
  void grow_shrink_andReplace_underLoad_withKills_loseAndDoubleNothing(@TempDir Path tmp)
      throws Exception {
    long seed = Long.getLong("frsm.membership.seed", System.nanoTime());
    String replay =
        "replay: ./mvnw -B -q -ntp -pl frsm-server -am verify -Dtest=NONE"
            + " -Dit.test=MultiProcessMembershipIT -Dsurefire.failIfNoSpecifiedTests=false"
            + " -Dfailsafe.failIfNoSpecifiedTests=false -Dfrsm.membership.seed="
            + seed;
    System.out.println("multi-process membership: seed " + seed + " (" + replay + ")");
    long began = System.nanoTime();
    schedule = new SplittableRandom(seed);
    dir = tmp;
    output = NODE_OUTPUT.resolve("membership-" + seed);
    Path history = Path.of("target", "histories", "multi-process-membership-" + seed + ".jsonl");
    Thread killAll = new Thread(this::killAll, "membership-it-kill-nodes");
    Runtime.getRuntime().addShutdownHook(killAll);
    certs = ClusterCertificates.create(dir.resolve("certs"), CLUSTER_ID);
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zk"))) {
      cluster =
          new NodeProcess.Cluster(
              dir,
              output,
              zookeeper.connectString(),
              SESSION_TIMEOUT,
              BOUNDED_DELAY,
              certs,
              processes);
      zk = observer(zookeeper.connectString(), certs.reader());
      registry = new MembershipRegistry(zk, layout);
      admin = new AdminTool(CLUSTER_ID, certs.admin(), this::liveSeeds, output, processes);
      try {
        for (int id = 1; id <= 3; id++) {
          node(id, false).start();
        }
        for (int id = 1; id <= 3; id++) {
          awaitServing(nodes.get(id));
        }
        initial = RingVersion.initial(ClusterShape.read(zk, layout).ring().placement());
        // Each thin client is given the client addresses of the nodes running when it is made,
        // nothing else: the load's from the first three nodes, which the changes retire, wipe or
        // restart on other ports; the final check's from the nodes left (as an application's
        // configuration would be updated).
        try (RecordingClient client =
            new RecordingClient(recorder, () -> thinClient(liveSeeds()))) {
          List<byte[]> counterKeys = new ArrayList<>();
          for (int i = 0; i < COUNTERS; i++) {
            counterKeys.add(("mem-counter-" + i).getBytes(US_ASCII));
          }
          check = new CounterCheck(client, COUNTERS, "mem");
          load = new FaultLoad(client, check, counterKeys, HOT_COUNTER);
          load.start();
          awaitIncrements(INCREMENTS_AFTER_CHANGE, "the load to run");

          // 3 -> 5, one change at a time.
          for (int id : List.of(4, 5)) {
            NodeProcess joining = node(id, true);
            joining.start();
            awaitServing(joining);
            change(id, -1, "add-node", Integer.toString(id));
          }
          // 5 -> 3: node 5, then node 1 (a seed the clients were given) with its orchestrator
          // killed.
          change(5, -1, "decommission", "5");
          change(1, -1, "decommission", "1");
          // Replace: a member is killed, its disk lost; node 6 takes its place.
          List<Integer> members = new ArrayList<>(newest().placement().nodes());
          int wiped = members.get(schedule.nextInt(members.size()));
          nodes.get(wiped).kill(Duration.ofSeconds(10));
          deleteRecursively(dir.resolve("node-" + wiped));
          System.out.printf("killed node %d and deleted its data directory%n", wiped);
          NodeProcess replacement = node(6, true);
          replacement.start();
          awaitServing(replacement);
          change(wiped, 6, "replace", Integer.toString(wiped), "--with", "6");

          awaitIncrements(INCREMENTS_AFTER_CHANGE, "increments after the last change");
          List<String> stuck = load.stop();
          assertTrue(stuck.isEmpty(), () -> "load threads did not stop: " + stuck);
          load.throwFailures();
          List<String> problems = check.verify();
          writeHistory(history);
          assertTrue(problems.isEmpty(), () -> "counters disagree: " + problems + "; " + replay);
          checkHistory(history, replay);
          checkFinalRing(wiped);
          System.out.printf(
              "multi-process membership (seed %d): 5 changes in %d s, %d increments took effect,"
                  + " %d unknown outcomes resolved by fence, %d not executed, %d creates+deletes,"
                  + " %d client errors, %d operations recorded%n",
              seed,
              TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - began),
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
            writeHistory(history);
          } catch (Exception | Error writeFailed) {
            e.addSuppressed(writeFailed);
          }
          throw e;
        }
      } catch (Throwable e) {
        System.err.println(
            "multi-process membership failed (seed "
                + seed
                + "; "
                + replay
                + "; history "
                + history.toAbsolutePath()
                + "); output under "
                + output.toAbsolutePath()
                + "; node output:");
        for (NodeProcess n : nodes.values()) {
          System.err.println(n.outputTail(40));
        }
        throw new AssertionError("seed " + seed + " failed (" + replay + ")", e);
      } finally {
        if (load != null) {
          load.stop();
        }
        killAll();
        if (registry != null) {
          registry.close();
        }
        zk.close();
      }
    } finally {
      killAll();
      Runtime.getRuntime().removeShutdownHook(killAll);
    }
  }

  /**
   * Requests one change with {@code frsm admin <command...>}, kills one node process during it as
   * the schedule says, waits for the change to end and the load to go on, and checks the new ring.
   *
   * @param node the node added or decommissioned, or the dead one replaced
   * @param replacement the replacing node, or -1
   */
  private void change(int node, int replacement, String... command) throws Exception {
    RingVersion before = newest();
    long base = before.version();
    String kind = command[0];
    Target target =
        switch (kind) {
          case "add-node" -> Target.values()[schedule.nextInt(3)];
            // Node 1, a seed of the clients, is decommissioned while its orchestrator dies.
          case "decommission" ->
              node == 1 ? Target.ORCHESTRATOR : Target.values()[schedule.nextInt(2)];
            // A replaced node is dead already: a second dead voter would cost ranges their quorum.
          default -> Target.INCOMING;
        };
    long stage = base + 1 + schedule.nextInt(2); // the learner or the promotion version
    Duration down =
        Duration.ofMillis(schedule.nextLong(DOWN_MIN.toMillis(), DOWN_MAX.toMillis() + 1));
    long incrementsBefore = check.incrementsTookEffect();
    long started = System.nanoTime();

    AdminTool.Run request = admin.run(command);
    assertEquals(0, request.exitCode(), request::toString);
    assertTrue(request.out().startsWith("accepted: "), request::toString);
    // The same request again, from a second operator while the change runs (its own JVM: the
    // kill below does not wait for it).
    CompletableFuture<AdminTool.Run> duplicate =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return admin.run(command);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });

    awaitCondition(
        () -> !changePending() || newestVersion() >= stage,
        CHANGE_DEADLINE,
        "ring version " + stage + " of " + String.join(" ", command));
    int victim = victim(target, before, node, replacement);
    boolean pendingAtKill = changePending();
    long versionAtKill = newestVersion();
    nodes.get(victim).kill(Duration.ofSeconds(10));
    boolean leaving =
        (kind.equals("decommission") && victim == node) || before.retired().contains(victim);
    System.out.printf(
        "%s: kill -9 of node %d (%s) at ring version %d (change %s); %s%n",
        String.join(" ", command),
        victim,
        target,
        versionAtKill,
        pendingAtKill ? "in progress" : "already done",
        leaving ? "it leaves: stays down" : "down for " + down.toMillis() + " ms");
    if (!leaving) {
      runFor(down);
      nodes.get(victim).start();
      awaitServing(nodes.get(victim));
    }
    awaitCondition(
        () -> !changePending() || !load.stillRunning(),
        CHANGE_DEADLINE,
        String.join(" ", command) + " to end");
    load.throwFailures();
    AdminTool.Run second = duplicate.get(2, TimeUnit.MINUTES);
    assertEquals(1, second.exitCode(), second::toString);
    // Refused: another change is in progress (or, had this one ended already, its node's new
    // state makes the same request meaningless).
    assertTrue(second.out().startsWith("refused: "), second::toString);
    RingVersion after = newest();
    long versions = after.version() - base;
    assertTrue(
        versions >= 3 && versions % 2 == 1,
        "learners, then a promotion and a drop per batch of ranges: " + versions + " versions");
    changeVersions += versions;
    Set<Integer> expected = new TreeSet<>(before.placement().nodes());
    switch (kind) {
      case "add-node" -> expected.add(node);
      case "decommission" -> expected.remove(node);
      default -> {
        expected.remove(node);
        expected.add(replacement);
      }
    }
    assertEquals(expected, after.placement().nodes(), "members after " + kind);
    if (!kind.equals("add-node")) {
      assertTrue(after.retired().contains(node), "node " + node + " is retired");
    }
    if (kind.equals("decommission") && nodes.get(node).isAlive()) {
      // The operator stops a decommissioned node (it is in no range; it could still orchestrate
      // later changes while it runs: a kill of the orchestrator would then hit a retired node).
      nodes.get(node).kill(Duration.ofSeconds(10));
    }
    awaitIncrements(INCREMENTS_AFTER_CHANGE, "increments after " + String.join(" ", command));
    AdminTool.Run status = admin.run("status");
    assertEquals(0, status.exitCode(), status::toString);
    assertTrue(status.out().contains("membership change: none"), status::toString);
    assertTrue(
        AdminTool.statusRow(status.out(), node, kind.equals("add-node") ? "member" : "retired"),
        status::toString);
    if (replacement >= 0) {
      assertTrue(AdminTool.statusRow(status.out(), replacement, "member"), status::toString);
    }
    System.out.printf(
        "%s: done in %d ms at ring version %d; %d increments took effect meanwhile%n",
        String.join(" ", command),
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started),
        after.version(),
        check.incrementsTookEffect() - incrementsBefore);
  }

  /** The node a kill during a change hits: {@code target}, drawn among the candidates. */
  private int victim(Target target, RingVersion before, int node, int replacement)
      throws Exception {
    if (target == Target.ORCHESTRATOR) {
      String named = orchestrator();
      Integer id = named == null ? null : Integer.valueOf(named.strip());
      if (id != null && nodes.containsKey(id) && nodes.get(id).isAlive()) {
        return id;
      }
      System.out.println("no running orchestrator named (" + named + "): a voter instead");
    }
    if (target == Target.INCOMING
        && (replacement >= 0 || !before.placement().nodes().contains(node))) {
      return replacement >= 0 ? replacement : node;
    }
    List<Integer> voters =
        before.placement().nodes().stream().filter(id -> id != node).sorted().toList();
    return voters.get(schedule.nextInt(voters.size()));
  }

  /** The ring as the cluster's history ends. */
  private void checkFinalRing(int wiped) throws Exception {
    List<RingVersion> all = new RingHistory(zk, layout).read(initial, null);
    assertEquals(
        1 + changeVersions,
        all.size(),
        "version 0, then each change's versions (learners, a promotion and a drop per batch)");
    RingVersion last = all.get(all.size() - 1);
    Set<Integer> members = new TreeSet<>(List.of(2, 3, 4, 6));
    members.remove(wiped);
    assertEquals(members, last.placement().nodes(), "the final members");
    assertEquals(new TreeSet<>(List.of(1, 5, wiped)), new TreeSet<>(last.retired()));
    Placement p = last.placement();
    for (int r = 0; r < p.rangeCount(); r++) {
      assertEquals(3, p.replicas(r).size(), "voters of range " + r);
      assertEquals(List.of(), p.learners(r), "learners of range " + r);
    }
    awaitCondition(
        () -> {
          try {
            Map<Integer, Long> installed = new RingHistory(zk, layout).installed();
            return members.stream()
                .allMatch(id -> installed.getOrDefault(id, -1L) == last.version());
          } catch (Exception e) {
            return false;
          }
        },
        READY_DEADLINE,
        "every member to install version " + last.version());
    AdminTool.Run ring = admin.run("ring");
    assertEquals(0, ring.exitCode(), ring::toString);
    assertTrue(
        ring.out().startsWith("ring version " + last.version() + " (newest)"), ring::toString);
    // The retired ids are refused by the cluster and cannot start again.
    AdminTool.Run again = admin.run("replace", Integer.toString(wiped), "--with", "6");
    assertEquals(1, again.exitCode(), again::toString);
    assertTrue(again.out().contains("retired"), again::toString);
    AdminTool.Run back = admin.run("add-node", "1");
    assertEquals(1, back.exitCode(), back::toString);
    assertTrue(back.out().contains("retired"), back::toString);
    AdminTool.Run tooFew = admin.run("decommission", Integer.toString(members.iterator().next()));
    assertEquals(1, tooFew.exitCode(), tooFew::toString);
    assertTrue(tooFew.out().contains("fewer than"), tooFew::toString);
    List<NodeProcess> retired = Stream.of(1, 5, wiped).map(nodes::get).toList();
    for (NodeProcess n : retired) {
      if (n.isAlive()) {
        n.kill(Duration.ofSeconds(10)); // a leaving node that was not killed is still up: stop it
      }
      n.start(); // the wiped one on its empty directory
    }
    for (NodeProcess n : retired) {
      awaitCondition(() -> !n.isAlive(), READY_DEADLINE, "retired node " + n.nodeId() + " to exit");
      assertTrue(n.outputContains("is retired"), () -> n.outputTail(20));
    }
  }

  private NodeProcess node(int id, boolean join) throws Exception {
    NodeProcess n = cluster.node(id);
    nodes.put(id, join ? n.joining() : n);
    return n;
  }

  private RingVersion newest() throws Exception {
    return new RingHistory(zk, layout).newest(initial);
  }

  private long newestVersion() {
    try {
      return newest().version();
    } catch (Exception e) {
      return -1; // ZooKeeper busy: ask again
    }
  }

  private boolean changePending() {
    try {
      return zk.checkExists().forPath(layout.membershipChange()) != null;
    } catch (Exception e) {
      return true; // ZooKeeper busy: ask again
    }
  }

  private String orchestrator() {
    try {
      return new String(
          zk.getData().forPath(layout.membershipOrchestrator()), StandardCharsets.UTF_8);
    } catch (Exception e) {
      return null;
    }
  }

  /** The client addresses of the registered nodes whose processes run, {@code host:port,...}. */
  private String liveSeeds() {
    try {
      return registry.members().stream()
          .filter(n -> nodes.containsKey(n.nodeId()) && nodes.get(n.nodeId()).isAlive())
          .sorted(Comparator.comparingInt(NodeInfo::nodeId))
          .map(n -> n.host() + ":" + n.clientPort())
          .collect(Collectors.joining(","));
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the registered nodes", e);
    }
  }

  /** Waits until the node's current incarnation logged that it serves and is registered. */
  private void awaitServing(NodeProcess n) {
    String serves = "node " + n.nodeId() + " serves";
    String boot = "node " + n.nodeId() + " boot " + n.incarnation() + " started";
    awaitCondition(
        () -> {
          if (!n.isAlive()) {
            fail("node " + n.nodeId() + " exited while starting: " + n.outputTail(20));
          }
          return n.outputContains(serves)
              && n.outputContains(boot)
              && new ClusterView(zk, registry, CLUSTER_ID).live().contains(n.nodeId());
        },
        READY_DEADLINE,
        "node " + n.nodeId() + " to serve as incarnation " + n.incarnation());
  }

  /** Waits until {@code count} more increments took effect: the load goes on. */
  private void awaitIncrements(long count, String what) {
    long target = check.incrementsTookEffect() + count;
    awaitCondition(
        () -> check.incrementsTookEffect() >= target || !load.stillRunning(),
        CHANGE_DEADLINE,
        what + " (" + check.incrementsTookEffect() + " of " + target + ")");
    load.throwFailures();
  }

  /** Lets the load run for {@code d}: a point of the schedule, not a synchronization. */
  private void runFor(Duration d) {
    MultiProcessSupport.runFor(d, load);
  }

  private void writeHistory(Path history) throws Exception {
    MultiProcessSupport.writeHistory(recorder, history);
  }

  private void checkHistory(Path history, String replay) {
    // Thin clients leave τ to the node (arrival): an unknown outcome takes effect at the latest T
    // after arrival, and a request arrives within the client timeout of its call.
    long bound = BOUNDED_DELAY.plus(CLIENT_TIMEOUT).plus(Duration.ofSeconds(1)).toNanos();
    MultiProcessSupport.assertLinearizable(recorder, bound, history, replay);
  }

  private static void deleteRecursively(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  private void killAll() {
    MultiProcessSupport.killAll(processes);
  }

  private FrsmClient thinClient(String seeds) {
    TlsFiles tls = certs.client();
    return FrsmClient.builder()
        .seeds(seeds)
        .clusterId(CLUSTER_ID)
        .operationTimeout(CLIENT_TIMEOUT)
        .tls(tls.caBundle(), tls.certificateChain(), tls.privateKey())
        .build();
  }
}
