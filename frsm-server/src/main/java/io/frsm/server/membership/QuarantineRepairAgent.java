package io.frsm.server.membership;

import io.frsm.lsm.QuarantinedInterval;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.zk.RangeSettleRequests;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * A node's own side of repairing its quarantined storage (docs/PROTOCOL.md "Corrupt storage",
 * "Repair"). While {@code needsRepair} is not empty and no membership change is in progress, it
 * requests a {@link Kind#REPAIR} of this node for the ranges the quarantine touches (at most one at
 * a time: a change is stored only if none is). While its repair runs, once this node's cores run
 * the learner version and every repaired range was settled there, it releases each table whose
 * quarantined intervals the repair covers — after {@link RepairScope#checkRelease}, which throws
 * rather than release out of order — and then says so in {@link ZkLayout#membershipRepaired}, for
 * which the orchestrator waits before it makes the node a voter again.
 *
 * <p>Thread-safety: its own thread (never the membership agent's: when this node orchestrates its
 * own repair, that thread waits for the release done here); {@link #requestNow} from any thread.
 */
public final class QuarantineRepairAgent implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(QuarantineRepairAgent.class.getName());
  private static final long CHECK_MILLIS = 500;

  /** The node's storage as the repair sees it. */
  public interface Storage {
    List<QuarantinedInterval> needsRepair();

    void release(long generation) throws IOException;
  }

  private final int self;
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final MembershipOrchestrator orchestrator;
  private final RingHistory history;
  private final RangeSettleRequests settles;
  private final RingVersion initial;
  private final LongSupplier installedVersion;
  private final Storage storage;
  private final ScheduledExecutorService thread;
  private final AtomicLong started = new AtomicLong();
  private final AtomicLong released = new AtomicLong();
  private final AtomicLong finished = new AtomicLong();
  private MembershipChange running; // this node's repair last seen in progress (agent thread)
  private volatile String lastRefusal = "";

  /**
   * @param installedVersion the ring version this node's cores run
   */
  public QuarantineRepairAgent(
      int self,
      CuratorFramework zk,
      ZkLayout layout,
      MembershipOrchestrator orchestrator,
      RingVersion initial,
      LongSupplier installedVersion,
      Storage storage) {
    this.self = self;
    this.zk = zk;
    this.layout = layout;
    this.orchestrator = orchestrator;
    this.history = new RingHistory(zk, layout);
    this.settles = new RangeSettleRequests(zk, layout);
    this.initial = initial;
    this.installedVersion = installedVersion;
    this.storage = storage;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-" + self + "-repair");
              t.setDaemon(true);
              return t;
            });
  }

  public void start() {
    thread.scheduleWithFixedDelay(this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  /** Repairs this node requested (for the meters). */
  public long repairsStarted() {
    return started.get();
  }

  /** Repairs of this node seen to the end: stored, then gone (the node a voter again). */
  public long repairsFinished() {
    return finished.get();
  }

  /** Quarantined tables this node released after a repair (for the meters). */
  public long tablesReleased() {
    return released.get();
  }

  private void check() {
    try {
      MembershipChange pending = orchestrator.pending();
      if (running != null && !running.equals(pending)) {
        finished.incrementAndGet();
        LOG.log(
            Level.INFO,
            "node {0}: repair finished: {1}; still quarantined: {2}",
            self,
            running,
            storage.needsRepair());
        running = null;
      }
      if (pending != null) {
        if (pending.kind() == Kind.REPAIR && pending.node() == self) {
          running = pending;
          releaseIfRepaired(pending);
        }
        return; // at most one change at a time: wait behind it
      }
      List<QuarantinedInterval> quarantined = storage.needsRepair();
      publishQuarantine(quarantined);
      if (!quarantined.isEmpty()) {
        requestNow();
      }
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (IllegalArgumentException | IllegalStateException refused) {
      String why = String.valueOf(refused.getMessage());
      if (!why.equals(lastRefusal)) {
        lastRefusal = why; // once per reason: it is retried every pass
        LOG.log(Level.WARNING, "node " + self + ": repair of its quarantine waits: " + why);
      }
    } catch (Exception e) {
      LOG.log(Level.WARNING, "node " + self + ": repair pass failed, trying again: " + e);
    }
  }

  /**
   * Requests a repair of this node's quarantined storage now (what {@code frsm admin repair} runs).
   *
   * @return the stored change
   * @throws IllegalStateException if nothing is quarantined, another change is in progress, or this
   *     node does not run the newest ring version yet
   * @throws IllegalArgumentException if the repair would leave a range with fewer than a quorum of
   *     voters, or the quarantine touches no range this node is a voter of
   */
  public MembershipChange requestNow() throws Exception {
    List<QuarantinedInterval> quarantined = storage.needsRepair();
    if (quarantined.isEmpty()) {
      throw new IllegalStateException("node " + self + " has no quarantined storage to repair");
    }
    RingVersion newest = history.newest(initial);
    if (installedVersion.getAsLong() != newest.version()) {
      throw new IllegalStateException(
          "node "
              + self
              + " runs ring version "
              + installedVersion.getAsLong()
              + ", not the newest "
              + newest.version()
              + ": it repairs once it installed it");
    }
    List<Integer> ranges = RepairScope.affected(newest.placement(), self, quarantined);
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException(
          "node "
              + self
              + "'s quarantine "
              + quarantined
              + " touches no range it is a voter of: nothing to repair through the ring");
    }
    MembershipChange change = orchestrator.requestRepair(self, ranges);
    started.incrementAndGet();
    lastRefusal = "";
    LOG.log(
        Level.INFO, "node {0}: repair started: {1} for quarantined {2}", self, change, quarantined);
    return change;
  }

  /** Steps 2–4 of the repair, once their conditions hold; then the word to the orchestrator. */
  private void releaseIfRepaired(MembershipChange change) throws Exception {
    long learner = change.baseVersion() + 1;
    if (saidReleased(learner) || installedVersion.getAsLong() != learner) {
      return;
    }
    Set<Integer> settled = new TreeSet<>();
    for (int r : change.ranges()) {
      RangeSettleRequests.Request q = settles.get(learner, r, null);
      if (q != null && q.settled()) {
        settled.add(r);
      }
    }
    if (!settled.containsAll(change.ranges())) {
      return;
    }
    List<RingVersion> versions = history.read(initial, null);
    if (versions.size() <= learner) {
      return;
    }
    var placement = versions.get((int) learner).placement();
    Map<Long, List<QuarantinedInterval>> byTable = new TreeMap<>();
    for (QuarantinedInterval q : storage.needsRepair()) {
      byTable.computeIfAbsent(q.generation(), g -> new ArrayList<>()).add(q);
    }
    for (var table : byTable.entrySet()) {
      if (!RepairScope.covered(placement, self, table.getValue())) {
        continue; // touches a range this repair does not cover: a repair of its own follows
      }
      // Stays on: the order rule, checked against what this node runs right now.
      RepairScope.checkRelease(
          self, installedVersion.getAsLong(), placement, settled, table.getValue());
      storage.release(table.getKey());
      released.incrementAndGet();
    }
    sayReleased(learner);
    LOG.log(
        Level.INFO,
        "node {0}: repair released its quarantine at ring version {1} ({2}); still quarantined: {3}",
        self,
        learner,
        change,
        storage.needsRepair());
  }

  /**
   * Keeps {@link ZkLayout#membershipQuarantined} in step with this node's quarantine (ephemeral:
   * gone with the session, written again by the next pass), so others' repairs see it is unhealthy.
   */
  private void publishQuarantine(List<QuarantinedInterval> quarantined) throws Exception {
    String path = layout.membershipQuarantined(self);
    if (quarantined.isEmpty()) {
      if (zk.checkExists().forPath(path) != null) {
        try {
          zk.delete().forPath(path);
        } catch (KeeperException.NoNodeException gone) {
          // Gone meanwhile.
        }
      }
      return;
    }
    StringBuilder b = new StringBuilder();
    for (int r : RepairScope.affected(history.newest(initial).placement(), self, quarantined)) {
      b.append(b.length() == 0 ? "" : ",").append(r);
    }
    byte[] data = b.toString().getBytes(StandardCharsets.UTF_8);
    try {
      if (!java.util.Arrays.equals(zk.getData().forPath(path), data)) {
        zk.setData().forPath(path, data);
      }
    } catch (KeeperException.NoNodeException absent) {
      zk.create()
          .creatingParentContainersIfNeeded()
          .withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
          .forPath(path, data);
    }
  }

  private boolean saidReleased(long learner) throws Exception {
    try {
      byte[] data = zk.getData().forPath(layout.membershipRepaired(self));
      return new String(data, StandardCharsets.UTF_8).equals(Long.toString(learner));
    } catch (KeeperException.NoNodeException none) {
      return false;
    }
  }

  private void sayReleased(long learner) throws Exception {
    byte[] data = Long.toString(learner).getBytes(StandardCharsets.UTF_8);
    try {
      zk.create().creatingParentContainersIfNeeded().forPath(layout.membershipRepaired(self), data);
    } catch (KeeperException.NodeExistsException earlier) {
      zk.setData().forPath(layout.membershipRepaired(self), data);
    }
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
