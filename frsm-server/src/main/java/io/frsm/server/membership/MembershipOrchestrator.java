package io.frsm.server.membership;

import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RingTransition;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RangeCopyRequests;
import io.frsm.server.zk.RangeSettleRequests;
import io.frsm.server.zk.RangeSettler;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.StepDeadline;
import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.KeeperException;

/**
 * Publishes the ring versions of one membership change at a time (docs/PROTOCOL.md "Membership
 * changes", "The server's side"): the change is requested into ZooKeeper ({@link #request}), and
 * whoever holds the cluster's orchestrator lock runs it ({@link #runPending}). The plan is derived
 * from the stored change and the ring history, and every step is idempotent (publish if absent,
 * wait, copy, settle), so a new orchestrator after a crash resumes where the history stands.
 *
 * <p>Each step: {@link RingHistory#checkStep} (in the plan and again before publishing), publish,
 * wait until a quorum of the new voters of every range whose members changed installed it, and the
 * incoming learners too; at the learner step, the incoming nodes copy their ranges ({@link
 * LearnerCopies}: they run the copies, this waits); then settle every range whose members changed,
 * through its holder, except a learner step's range whose data every incoming learner copied
 * ({@link #rangesToSettle}); {@link RingTransition#mayFollow} must then hold before the next step.
 * Before each publication and while it waits before the point of no return, a stored cancel ends
 * the change ({@link ChangeCancel}). A finished or cancelled change's settle and copy requests are
 * removed.
 *
 * <p>Thread-safety: {@link #request} from any thread; {@link #runPending} from one thread per
 * process (the lock orders processes).
 */
public final class MembershipOrchestrator {
  private static final System.Logger LOG = System.getLogger(MembershipOrchestrator.class.getName());
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final RingHistory history;
  private final RangeSettler settler;
  private final ClusterShape shape;
  private final RingVersion initial;
  private final IntFunction<NodeInfo> registered;
  private final LearnerCopies copies;
  private final ChangeCancel cancel;
  private final ChangeLeftovers leftovers;
  private final TokenOwners tokens;
  private final Duration stepTimeout;
  private final int rangesPerNode;

  /**
   * @param initial version 0, from {@code shape}
   * @param registered a node's registration (for a joining node's rack), or null if not registered
   * @param settings the step timeout (a wait without progress — a node installed, a copy done, a
   *     range settled: {@link StepDeadline} — stops the run; it is resumed by the next {@link
   *     #runPending}) and the step size of the changes {@link #request} stores
   */
  public MembershipOrchestrator(
      CuratorFramework zk,
      ZkLayout layout,
      ClusterShape shape,
      RingVersion initial,
      IntFunction<NodeInfo> registered,
      ChangeSettings settings) {
    this.zk = zk;
    this.layout = layout;
    this.history = new RingHistory(zk, layout);
    this.settler = new RangeSettler(new RangeSettleRequests(zk, layout));
    this.shape = shape;
    this.initial = initial;
    this.registered = registered;
    this.copies = new LearnerCopies(new RangeCopyRequests(zk, layout));
    this.cancel = new ChangeCancel(zk, layout, history, initial);
    this.leftovers = new ChangeLeftovers(zk, layout);
    this.tokens = new TokenOwners(zk, layout);
    this.stepTimeout = settings.stepTimeout();
    this.rangesPerNode = settings.rangesPerNode();
  }

  /**
   * Stores a new change, refusing what is unsafe or unknown with a message an operator can act on.
   * An add or a decommission promotes in steps of the configured ranges per node; a replace every
   * range at once, since its ranges run one voter short until their promotion settles and batches
   * would keep the last of them short longer.
   *
   * @throws IllegalArgumentException for an unknown, retired or already-member id, or a
   *     decommission that would leave fewer than RF nodes
   * @throws IllegalStateException if another change is in progress
   */
  public MembershipChange request(Kind kind, int node, int replacement) throws Exception {
    MembershipChange pending = pending();
    if (pending != null) {
      throw new IllegalStateException(
          "another membership change is in progress: " + pending + "; wait for it to finish");
    }
    RingVersion newest = history.newest(initial);
    MembershipChange change =
        new MembershipChange(
            kind, node, replacement, newest.version(), kind == Kind.REPLACE ? 0 : rangesPerNode);
    plan(
        change, newest, tokens.owners()); // refuses an unsafe or unknown change before it is stored
    cancel.clear(); // a cancel left by an ended change must not meet an identical new one
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.membershipChange(), change.encode());
    } catch (KeeperException.NodeExistsException raced) {
      throw new IllegalStateException(
          "another membership change is in progress: " + pending() + "; wait for it to finish");
    }
    LOG.log(Level.INFO, "membership change requested: {0}", change);
    return change;
  }

  /**
   * Stores a repair of {@code node}'s quarantined storage in {@code ranges} (ascending): it is a
   * learner there for one version, then a voter again (docs/PROTOCOL.md "Corrupt storage").
   *
   * @throws IllegalArgumentException if the node is not a voter of one of the ranges, or a range
   *     would be left with fewer than a quorum of voters (the message says which)
   * @throws IllegalStateException if another change is in progress
   */
  public MembershipChange requestRepair(int node, List<Integer> ranges) throws Exception {
    MembershipChange pending = pending();
    if (pending != null) {
      throw new IllegalStateException(
          "another membership change is in progress: " + pending + "; wait for it to finish");
    }
    RingVersion newest = history.newest(initial);
    MembershipChange change = new MembershipChange(Kind.REPAIR, node, -1, newest.version(), ranges);
    plan(change, newest, Map.of()); // refuses an unsafe repair before it is stored
    new RepairHealth(zk, layout).refuseUnhealthy(node, ranges, newest.placement());
    cancel.clear(); // a cancel left by an ended change must not meet an identical new one
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.membershipChange(), change.encode());
    } catch (KeeperException.NodeExistsException raced) {
      throw new IllegalStateException(
          "another membership change is in progress: " + pending() + "; wait for it to finish");
    }
    LOG.log(Level.INFO, "membership change requested: {0}", change);
    return change;
  }

  /** The change in progress, or null. A stored change that cannot be read is reported as such. */
  public MembershipChange pending() throws Exception {
    try {
      return MembershipChange.decode(zk.getData().forPath(layout.membershipChange()));
    } catch (KeeperException.NoNodeException none) {
      return null;
    }
  }

  /**
   * The plan of {@code change} from {@code base}, its base version's entry; {@code tokensOf} names
   * the replacements and whose tokens they own.
   */
  MembershipPlan plan(MembershipChange change, RingVersion base, Map<Integer, Integer> tokensOf) {
    Placement current = base.placement();
    Set<Integer> members = current.nodes();
    int n = change.node();
    if (base.retired().contains(n)
        || (change.replacement() >= 0 && base.retired().contains(change.replacement()))) {
      throw new IllegalArgumentException(
          "node "
              + (base.retired().contains(n) ? n : change.replacement())
              + " is retired (removed, or its disk was wiped) and can never take part again;"
              + " join the machine under a new node id");
    }
    return switch (change.kind()) {
      case REPAIR -> MembershipPlan.repair(base, n, change.ranges());
      case ADD -> {
        if (members.contains(n)) {
          throw new IllegalArgumentException("node " + n + " is already a member");
        }
        NodeInfo joining = registered.apply(n);
        if (joining == null) {
          throw new IllegalArgumentException(
              "node " + n + " is not registered: start it with join: true first");
        }
        List<NodeInfo> nodes = nodesOf(members);
        nodes.add(joining);
        yield MembershipPlan.between(
            base,
            MembershipPlan.votersOver(
                current, nodes, tokensOf, shape.vnodes(), shape.replicationFactor()),
            Set.of(),
            change.rangesPerNode());
      }
      case DECOMMISSION -> {
        if (!members.contains(n)) {
          throw new IllegalArgumentException(
              "node " + n + " is not a member: nothing to decommission");
        }
        if (members.size() - 1 < shape.replicationFactor()) {
          throw new IllegalArgumentException(
              "decommissioning node "
                  + n
                  + " would leave "
                  + (members.size() - 1)
                  + " nodes, fewer than the replication factor "
                  + shape.replicationFactor()
                  + ": add a node first");
        }
        List<NodeInfo> nodes = nodesOf(members);
        nodes.removeIf(i -> i.nodeId() == n);
        yield MembershipPlan.between(
            base,
            MembershipPlan.votersOver(
                current, nodes, tokensOf, shape.vnodes(), shape.replicationFactor()),
            Set.of(n),
            change.rangesPerNode());
      }
      case REPLACE -> {
        if (!members.contains(n)) {
          throw new IllegalArgumentException("node " + n + " is not a member: nothing to replace");
        }
        if (members.contains(change.replacement())) {
          throw new IllegalArgumentException(
              "node " + change.replacement() + " is already a member: a replacement must be new");
        }
        yield MembershipPlan.between(
            base,
            MembershipPlan.replacing(current, n, change.replacement()),
            Set.of(n),
            change.rangesPerNode());
      }
    };
  }

  /** The nodes of {@code ids} with their racks: the shape's, else their registration's. */
  private List<NodeInfo> nodesOf(Set<Integer> ids) {
    List<NodeInfo> nodes = new ArrayList<>();
    for (int id : ids) {
      String rack =
          shape.members().stream()
              .filter(m -> m.nodeId() == id)
              .map(ClusterShape.Member::rack)
              .findFirst()
              .orElseGet(
                  () -> {
                    NodeInfo info = registered.apply(id);
                    return info == null ? "" : info.rack();
                  });
      nodes.add(new NodeInfo(id, "", 0, 0, rack));
    }
    return nodes;
  }

  /**
   * Runs the pending change to its end under the cluster's orchestrator lock, then removes it;
   * returns false if there was none. A wait that exceeds the step timeout throws, leaving the
   * change stored for the next run.
   */
  public boolean runPending() throws Exception {
    return runPending(() -> {});
  }

  /** A step run once the lock is held, before the change (the agent names itself). */
  @FunctionalInterface
  public interface Holding {
    void run() throws Exception;
  }

  /** {@link #runPending()}, running {@code holding} once the lock is held. */
  public boolean runPending(Holding holding) throws Exception {
    InterProcessMutex lock = new InterProcessMutex(zk, layout.membershipLock());
    if (!lock.acquire(stepTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return false; // another process orchestrates
    }
    try {
      MembershipChange change = pending();
      if (change == null) {
        return false;
      }
      holding.run();
      run(change);
      history.sync();
      int removed = leftovers.removeUpTo(history.newest(initial).version());
      cancel.removeWithChange();
      LOG.log(
          Level.INFO,
          "membership change over: {0}; {1} settle and copy requests removed",
          change,
          removed);
      return true;
    } finally {
      lock.release();
    }
  }

  /** Stops a wait early; {@link #NEVER} past the point of no return. */
  @FunctionalInterface
  interface Stop {
    Stop NEVER = () -> false;

    boolean requested() throws Exception;
  }

  /**
   * Asks the orchestrator to cancel the stored change (docs/PROTOCOL.md "Membership changes",
   * "Cancel"); it publishes the reverse step, or ends a change that published nothing yet.
   *
   * @return the change whose cancel was asked
   * @throws IllegalStateException if no change is stored, or it is past its point of no return
   */
  public MembershipChange cancel() throws Exception {
    MembershipChange change = pending();
    if (change == null) {
      throw new IllegalStateException("no membership change is in progress: nothing to cancel");
    }
    cancel.ask(change);
    return change;
  }

  /**
   * Removes the settle and copy requests of every version up to the newest while no change is
   * stored (those a crash or an older release left behind); returns how many.
   */
  public int removeLeftovers() throws Exception {
    history.sync();
    long newest = history.newest(initial).version(); // read before: a later change asks above it
    if (pending() != null) {
      return 0;
    }
    return leftovers.removeUpTo(newest);
  }

  private void run(MembershipChange change) throws Exception {
    ChangeCancel.InstallWait quorums = t -> awaitInstalled(t, Set.of(), Stop.NEVER);
    if (cancel.endIfAsked(change, quorums)) {
      return;
    }
    history.sync();
    List<RingVersion> all = history.read(initial, null);
    if (change.baseVersion() >= all.size()) {
      throw new IllegalStateException(
          "the change " + change + " starts from a version the history does not hold");
    }
    RingVersion previous = all.get((int) change.baseVersion());
    Map<Integer, Integer> tokensOf = tokens.owners();
    MembershipPlan plan = plan(change, previous, tokensOf);
    long point = ChangeCancel.pointOfNoReturn(change);
    for (RingVersion step : plan.steps()) {
      if (step.version() >= all.size() && cancel.endIfAsked(change, quorums)) {
        return;
      }
      RingTransition transition = RingHistory.checkStep(previous, step);
      if (step.version() < all.size()) {
        RingVersion stored = all.get((int) step.version());
        if (!stored.equals(step)) {
          throw new IllegalStateException(
              "ring version "
                  + step.version()
                  + " is stored with other contents than "
                  + change
                  + " plans: another publisher interfered; the change stops");
        }
      } else if (!history.publish(previous, step)) {
        throw new IllegalStateException(
            "ring version " + step.version() + " was published by another orchestrator");
      }
      LOG.log(Level.INFO, "{0}: ring version {1} published", change, step.version());
      Stop stop = step.version() < point ? () -> cancel.asked(change) : Stop.NEVER;
      Set<Integer> installed = awaitInstalled(transition, learnersOf(step), stop);
      if (installed == null) {
        if (cancel.endIfAsked(change, quorums)) {
          return;
        }
        throw new IllegalStateException("a cancel was withdrawn: the change is run again");
      }
      Set<Integer> copied = Set.of();
      if (step.version() == change.baseVersion() + 1) {
        copied = copies.copy(step.version(), plan.incoming(), stepTimeout, stop);
        if (copied == null) {
          if (cancel.endIfAsked(change, quorums)) {
            return;
          }
          throw new IllegalStateException("a cancel was withdrawn: the change is run again");
        }
      }
      Set<Integer> ranges = rangesToSettle(transition, copied);
      if (ranges.size() < transition.membersChanged().size()) {
        LOG.log(
            Level.INFO,
            "{0}: ring version {1}: {2} ranges copied to their learners with unchanged voters"
                + " are not settled (the promotion settles them)",
            change,
            step.version(),
            transition.membersChanged().size() - ranges.size());
      }
      settler.settle(step.version(), ranges, stepTimeout);
      if (change.kind() == Kind.REPAIR && step.version() == change.baseVersion() + 1) {
        awaitReleased(change.node(), step.version());
      }
      if (!transition.mayFollow(installed, ranges)) {
        throw new IllegalStateException(
            "rule 4 does not hold after ring version " + step.version());
      }
      previous = step;
    }
    if (change.kind() == Kind.REPLACE) {
      // The replacement owns the dead node's tokens from now on (its own if it replaced one too):
      // later changes place replicas by them.
      tokens.record(change.replacement(), tokensOf.getOrDefault(change.node(), change.node()));
    }
  }

  /**
   * The ranges a step settles: every range whose members changed, except one whose voters did not
   * change and whose data every incoming learner's copy placed ({@code copiedWithData}). Rule 4(b)
   * asks a settle only where the voters changed; the learner step's settle of a range with the same
   * voters only brings its learners the keys, which the copy did, and whatever the copy missed (a
   * key written or chosen after the source's export, a cell accepted but not known chosen) the
   * promotion's settle, which rule 4(b) does ask, reads at a quorum of the raised set (PROTOCOL.md
   * "Copy"). A range whose voters changed is always settled, copied or not, unless rule 4(b) spares
   * it ({@link RingTransition#votersToSettle}: one voter removed from an even-sized set, learners
   * unchanged).
   */
  static Set<Integer> rangesToSettle(RingTransition transition, Set<Integer> copiedWithData) {
    Set<Integer> ranges = new TreeSet<>(transition.membersChanged());
    for (int range : copiedWithData) {
      if (!transition.votersChanged().contains(range)) {
        ranges.remove(range);
      }
    }
    // A range that loses one voter of an even-sized set and keeps its learners needs no settle:
    // a quorum of the voters left holds every chosen value logged (RingTransition.settleSpared,
    // PROTOCOL.md "The drop from an even-sized set needs no settle").
    for (int range : transition.votersChanged()) {
      if (!transition.votersToSettle().contains(range)) {
        ranges.remove(range);
      }
    }
    if (!ranges.containsAll(transition.votersToSettle())) {
      throw new IllegalStateException("a range whose voters change must be settled (rule 4b)");
    }
    return ranges;
  }

  private static Set<Integer> learnersOf(RingVersion v) {
    Set<Integer> nodes = new TreeSet<>();
    for (int r = 0; r < v.placement().rangeCount(); r++) {
      nodes.addAll(v.placement().learners(r));
    }
    return nodes;
  }

  /**
   * Waits for rule (a) and for every learner's installation; returns who installed, or null if
   * {@code stop} asked to stop first.
   */
  private Set<Integer> awaitInstalled(RingTransition t, Set<Integer> learners, Stop stop)
      throws Exception {
    StepDeadline deadline = new StepDeadline(stepTimeout);
    long v = t.to().ringVersion();
    int seen = -1;
    while (true) {
      Set<Integer> installed = history.installedAtLeast(v);
      if (installed.size() > seen) {
        seen = installed.size(); // installations only grow at one version
        deadline.progressed();
      }
      boolean quorums =
          t.membersChanged().stream().allMatch(r -> t.installedByQuorum(r, installed));
      if (quorums && installed.containsAll(learners)) {
        return installed;
      }
      if (stop.requested()) {
        return null;
      }
      if (deadline.expired()) {
        throw new TimeoutException(
            "ring version " + v + " installed only by " + installed + " after " + deadline);
      }
      LockSupport.parkNanos(POLL_NANOS); // records change rarely; a watch per node is not worth it
    }
  }

  /**
   * Waits until the repaired node says it released its quarantine at learner version {@code v}
   * ({@code QuarantineRepairAgent}): only then may it be a voter again. The node checks the order
   * itself ({@link RepairScope#checkRelease}); a record that does not name {@code v} is waited
   * past.
   */
  private void awaitReleased(int node, long v) throws Exception {
    long deadline = System.nanoTime() + stepTimeout.toNanos();
    while (true) {
      try {
        byte[] data = zk.getData().forPath(layout.membershipRepaired(node));
        if (data.length <= 20
            && new String(data, StandardCharsets.UTF_8).equals(Long.toString(v))) {
          return;
        }
      } catch (KeeperException.NoNodeException notYet) {
        // The node has not released yet.
      }
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "node " + node + " did not release its quarantine at ring version " + v + " yet");
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }

  /**
   * For status: the copies of {@code change}'s learner step, as {@code ", copies D/N done"} and
   * each failed or damaged one; empty when it asked none (yet).
   */
  public String copyProgress(MembershipChange change) throws Exception {
    return copies.progress(change.baseVersion() + 1);
  }

  /**
   * For status: how far {@code change} is, as {@code ", step K of N"} (K of its N ring versions
   * published); empty if its plan cannot be made from the history (then the run reports why).
   */
  public String stepProgress(MembershipChange change) throws Exception {
    List<RingVersion> all = history.read(initial, null);
    if (change.baseVersion() >= all.size()) {
      return "";
    }
    MembershipPlan plan;
    try {
      plan = plan(change, all.get((int) change.baseVersion()), tokens.owners());
    } catch (IllegalArgumentException unplannable) {
      return "";
    }
    long published = Math.min(plan.steps().size(), all.size() - 1 - change.baseVersion());
    return ", step " + published + " of " + plan.steps().size();
  }

  /** For status: the newest ring version in the history. */
  public RingVersion newest() throws Exception {
    return history.newest(initial);
  }

  /**
   * For status: the node that names itself the orchestrator ({@code membership/orchestrator}), or
   * -1 if none does; a record that is not a decimal id >= 0 of at most 10 digits is reported as -1.
   */
  public int orchestratingNode() throws Exception {
    byte[] data;
    try {
      data = zk.getData().forPath(layout.membershipOrchestrator());
    } catch (KeeperException.NoNodeException none) {
      return -1;
    }
    String text = new String(data, java.nio.charset.StandardCharsets.UTF_8);
    if (text.isEmpty() || text.length() > 10 || !text.chars().allMatch(Character::isDigit)) {
      return -1;
    }
    long id = Long.parseLong(text);
    return id > Integer.MAX_VALUE ? -1 : (int) id;
  }

  /** For status: the history's newest version and every node's installed version. */
  public Map<Integer, Long> installed() throws Exception {
    return history.installed();
  }
}
