package io.frsm.server.zk;

import io.frsm.consensus.core.LeaseConfig;
import io.frsm.consensus.core.Placement;
import io.frsm.server.ring.Ring;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;

/**
 * One node's side of range leadership (docs/DESIGN.md "Ring, leadership, membership"; "Lease
 * invariant"). Per range it replicates, the node competes in the range's leader election ({@link
 * RangeLatch}) only while it is the range's preferred holder: the first replica, in the range's
 * order (natural leader first), that is live and ready. So the natural leader holds its ranges
 * whenever it serves; while it is down the next replica takes over; when it is ready again the
 * stand-in sees that it is no longer preferred, leaves the latch and ends its lease, and the
 * natural leader wins the latch: leadership is handed back.
 *
 * <p>A hand-over on purpose (stepping aside for the preferred holder, a graceful stop) releases the
 * lease through the core before the latch is left: the core ends the lease for good and says
 * whether the term is clean (no lease of it or of an earlier term can be in force); if so the node
 * writes the release mark ({@link RangeTermStore#markReleased}), and the successor's bump, which
 * finds it, skips the {@code L·(1+ρ)} wait. A lost latch or lease is not a release: the successor
 * waits. The range's first term skips the wait too: it has no predecessor.
 *
 * <p>On winning a latch the node bumps the range's term ({@link RangeTermStore#bumpTerm}, which
 * revokes the predecessor's lease generation and names this node as the range's leader for routing)
 * and reports {@link Sink#granted}; the {@link LeaseKeeper} then renews all held ranges in one
 * {@code multi} per {@code L/4} and reports each renewal. Losing the latch, a failed renewal check
 * and a LOST session report {@link Sink#lost} at once; a SUSPENDED connection only pauses renewing
 * ({@link LeaseKeeper}). After a new ZooKeeper session the latches join again by themselves ({@link
 * RangeLatch}) and a won latch bumps a new term.
 *
 * <p>Step-down (docs/PROTOCOL.md "Step-down and the quorum watch"): the node's cores report the
 * ranges whose quorum of replicas they cannot reach ({@link #quorumChanged}); the node counts
 * itself out of those ranges' preferred holders — so it hands over the ones it holds, by a release,
 * and joins no latch of theirs (a pre-vote guard) — and publishes them, so that the others count it
 * out too, until its cores report the quorum reachable again.
 *
 * <p>Graceful stop (docs/PROTOCOL.md "A graceful stop hands off"): {@link #close} first counts the
 * node out of every range it replicates — in its own view and in its ready marker, as a step-down
 * does for one range — so each range it holds goes through the same hand-over (a drain and a
 * shipment with {@code consensus.handOff}, else a plain release) and its successor competes; it
 * waits for those hand-offs at most the stop wait ({@link HandOffLimits#stopWait}), then releases
 * the rest plainly.
 *
 * <p>Leadership is advisory: two nodes that both believe they lead cannot break safety (ballots,
 * terms persisted at a quorum and the lease wait do), it only costs liveness. Latch and membership
 * events are handled on one thread; ZooKeeper calls never run on Curator's event thread.
 *
 * <p>This class decides who competes for which range; its parts keep the state: {@link
 * RangeLatches} (the latches joined, what a latch event does to the term), {@link HeldTerms} (the
 * terms held, release and step-down), {@link UnreachableRanges} (the quorum watch's reports),
 * {@link LeadershipView} and {@link LeadershipEvents} (the event thread); {@link RangeHandOvers}
 * gives up what it decides to give up (a hand-off or a plain release), {@link LeadershipStop} runs
 * the graceful stop.
 */
public final class RangeLeadership implements AutoCloseable {
  /**
   * Where the outcome goes: the node's consensus core (through its event loop); with hand-offs on,
   * also its drains and their deliveries ({@link HandOffSink}).
   */
  public interface Sink extends HandOffSink {
    /**
     * The node won range {@code range} with {@code term} (TermGranted); {@code noEarlierLease}: no
     * lease of an earlier term can be in force ({@link TermGrant#noEarlierLease}).
     */
    void granted(int range, long term, boolean noEarlierLease);

    /**
     * The node hands {@code range} over on purpose: end {@code term}'s lease for good
     * (ReleaseLease). Completes with the core's answer: whether the term may be marked released.
     */
    java.util.concurrent.CompletableFuture<Boolean> release(int range, long term);

    /** A renewal of {@code term} sent at monotonic {@code sentNanos} succeeded (LeaseRenewed). */
    void renewed(int range, long term, long sentNanos);

    /** The lease of {@code range} ends now (LeaseLost). */
    void lost(int range);

    /**
     * Whether the node competes for {@code range} (Candidacy): told for every replicated range at
     * the first view of the members, then whenever it changes. An operation waiting in the core for
     * a range the node no longer competes for is given back to be routed again.
     */
    void candidacy(int range, boolean candidate);
  }

  private final int self;
  private final Ring ring;
  private final Sink sink;
  private final LeadershipEvents events;
  private final ScheduledExecutorService renewer;

  /** The terms' ZooKeeper writes (bumps, release marks), many at once ({@link RangeLatches}). */
  private final ExecutorService zooKeeperCalls;

  /** Term writes in flight at once at most: far more than ZooKeeper needs to pipeline them. */
  private static final int TERM_WRITES_AT_ONCE = 16;

  private final LeaseKeeper keeper;
  private final java.util.function.Consumer<Set<Integer>> publishUnreachable;

  /**
   * Ranges this node is a voter of, with their voters in preference order: the shape's ring at
   * first, then each installed ring version's ({@link #votersChanged}). Event thread only (filled
   * by the constructor before the thread exists).
   */
  private final Map<Integer, List<Integer>> replicated = new HashMap<>();

  /** Each range's voters in preference order, for routing on any thread; as {@link #replicated}. */
  private volatile List<List<Integer>> votersByRange;

  // Event thread only.
  private final RangeLatches latches;
  private Set<Integer> live = Set.of();
  private Set<Integer> ready = Set.of();

  /** The other nodes' unreachable ranges, as their ready markers say. */
  private Map<Integer, Set<Integer>> othersUnreachable = Map.of();

  /**
   * The ranges whose quorum this node's cores cannot reach now (Effect.QuorumReachability): it does
   * not compete for them, and hands over those it holds.
   */
  private final UnreachableRanges unreachable;

  /** A view of the members arrived: candidacies may be told (never before the first view). */
  private boolean viewSeen;

  /** What the core was last told of each replicated range (Sink#candidacy). */
  private final Map<Integer, Boolean> candidacy = new HashMap<>();

  /**
   * The view routing decides by ({@link #preferredHolder(int)}), published between telling the core
   * the ranges it now competes for and those it no longer does, so that an operation routed here by
   * this view reaches the core after its range's candidacy became true, and one routed here by the
   * previous view is given back after it became false.
   */
  private volatile LeadershipView routingView = LeadershipView.NONE;

  /** The ranges whose term this node holds now (read by routing on other threads). */
  private final HeldTerms held;

  /** How ranges are given up on purpose: hand-offs or plain releases ({@link RangeHandOvers}). */
  private final RangeHandOvers handOvers;

  /** The graceful stop's sequence ({@link #close}). */
  private final LeadershipStop stop;

  /** With the default ρ, publishing nowhere which ranges the node does not compete for (tests). */
  public RangeLeadership(
      CuratorFramework zk, ZkLayout layout, int self, Ring ring, Duration lease, Sink sink) {
    this(zk, layout, self, ring, lease, sink, ranges -> {}, store -> store::bumpTerm);
  }

  /**
   * @param driftPartsPerMillion ρ as the core's lease rules use it: the session carries a lease for
   *     {@code S·(1−ρ)/(1+ρ)} after its last renewal ({@link LeaseKeeper})
   * @param publishUnreachable told, on the leadership thread, the ranges this node does not compete
   *     for whenever they change: the node writes them into its ready marker, so that the other
   *     replicas compete instead (must not block)
   */
  public RangeLeadership(
      CuratorFramework zk,
      ZkLayout layout,
      int self,
      Ring ring,
      Duration lease,
      long driftPartsPerMillion,
      Sink sink,
      java.util.function.Consumer<Set<Integer>> publishUnreachable) {
    this(
        zk,
        layout,
        self,
        ring,
        lease,
        driftPartsPerMillion,
        sink,
        publishUnreachable,
        store -> store::bumpTerm);
  }

  /** With the default ρ and the term bumps made by {@code bumper} (tests). */
  RangeLeadership(
      CuratorFramework zk,
      ZkLayout layout,
      int self,
      Ring ring,
      Duration lease,
      Sink sink,
      java.util.function.Consumer<Set<Integer>> publishUnreachable,
      java.util.function.Function<RangeTermStore, RangeLatches.TermBumper> bumper) {
    this(
        zk,
        layout,
        self,
        ring,
        lease,
        LeaseConfig.DEFAULT_DRIFT_PARTS_PER_MILLION,
        sink,
        publishUnreachable,
        bumper);
  }

  private RangeLeadership(
      CuratorFramework zk,
      ZkLayout layout,
      int self,
      Ring ring,
      Duration lease,
      long driftPartsPerMillion,
      Sink sink,
      java.util.function.Consumer<Set<Integer>> publishUnreachable,
      java.util.function.Function<RangeTermStore, RangeLatches.TermBumper> bumper) {
    this.publishUnreachable = publishUnreachable;
    this.self = self;
    this.ring = ring;
    this.sink = sink;
    RangeTermStore terms = new RangeTermStore(zk, layout, System::nanoTime);
    this.unreachable = new UnreachableRanges(self);
    List<List<Integer>> voters = new ArrayList<>(ring.rangeCount());
    for (int r = 0; r < ring.rangeCount(); r++) {
      List<Integer> replicas = ring.replicasOfRange(r);
      voters.add(replicas);
      if (replicas.contains(self)) {
        replicated.put(r, replicas);
      }
    }
    this.votersByRange = List.copyOf(voters);
    this.events = new LeadershipEvents(self);
    this.stop =
        new LeadershipStop(self, RangeHandOvers.stopWait(sink), this::post, new StopDropOut());
    this.renewer =
        Executors.newSingleThreadScheduledExecutor(
            LeadershipEvents.daemon("frsm-node-" + self + "-leases"));
    this.keeper =
        new LeaseKeeper(
            zk,
            terms,
            lease,
            driftPartsPerMillion,
            renewer,
            new LeaseKeeper.Listener() {
              @Override
              public void renewed(TermGrant grant, long sentNanos) {
                sink.renewed(Integer.parseInt(grant.rangeId()), grant.term(), sentNanos);
              }

              @Override
              public void lost(String rangeId, String reason) {
                int range = Integer.parseInt(rangeId);
                sink.lost(range); // at once, on the caller's thread
                post(() -> latches.leaseEnded(range));
              }
            });
    this.held = new HeldTerms(self, terms, sink, keeper);
    this.zooKeeperCalls =
        Executors.newFixedThreadPool(
            TERM_WRITES_AT_ONCE, LeadershipEvents.daemon("frsm-node-" + self + "-terms"));
    this.latches =
        new RangeLatches(
            zk,
            layout,
            self,
            terms,
            held,
            bumper.apply(terms),
            zooKeeperCalls,
            this::post,
            this::rejoinLater);
    this.handOvers =
        new RangeHandOvers(self, held, sink, lease, this::post, latches, stop, this::rejoinLater);
  }

  /**
   * The live members or the ready markers changed: compete for the ranges where this node is now
   * the preferred holder, step aside from the others. Any thread.
   */
  public void membersChanged(Set<Integer> liveNodes, Set<Integer> readyNodes) {
    membersChanged(liveNodes, readyNodes, Map.of());
  }

  /**
   * As {@link #membersChanged(Set, Set)}, with the ranges each ready node does not compete for (its
   * ready marker's; this node's own entry is ignored: its cores tell it first). Any thread.
   */
  public void membersChanged(
      Set<Integer> liveNodes, Set<Integer> readyNodes, Map<Integer, Set<Integer>> unreachableOf) {
    Set<Integer> l = Set.copyOf(liveNodes);
    Set<Integer> r = Set.copyOf(readyNodes);
    Map<Integer, Set<Integer>> u = new HashMap<>(unreachableOf);
    u.remove(self);
    Map<Integer, Set<Integer>> others = Map.copyOf(u);
    post(
        () -> {
          live = l;
          ready = r;
          othersUnreachable = others;
          viewSeen = true;
          viewChanged();
        });
  }

  /**
   * This node's cores report the ranges whose quorum of replicas became unreachable ({@code lost})
   * and those reachable again ({@code regained}) (docs/PROTOCOL.md "Step-down and the quorum
   * watch"). It hands over the lost ones it holds, stops competing for them and says so in its
   * ready marker, so that a replica that reaches a quorum takes them; it competes again for the
   * regained ones (as the natural leader, it takes them back). Any thread; must not block.
   */
  public void quorumChanged(Set<Integer> lost, Set<Integer> regained) {
    Set<Integer> down = Set.copyOf(lost);
    Set<Integer> up = Set.copyOf(regained);
    post(
        () -> {
          if (!unreachable.update(down, up, replicated.keySet())) {
            return;
          }
          if (!stop.begun()) { // a stopping node's marker names every range (StopDropOut)
            publishUnreachable.accept(unreachable.snapshot());
          }
          if (viewSeen) {
            viewChanged();
          }
        });
  }

  /**
   * This node installed a ring version: compete only for the ranges it is a voter of now, in the
   * version's preference order, and hand over a range it holds but no longer votes in (the lease
   * goes only to a voter of the newest version: docs/PROTOCOL.md "Membership changes"). A learner
   * never competes: it never persists a term. Any thread; must not block.
   */
  public void votersChanged(Placement installed) {
    if (installed.rangeCount() != ring.rangeCount()) {
      throw new IllegalArgumentException(
          "ring version "
              + installed.ringVersion()
              + " has "
              + installed.rangeCount()
              + " ranges, the ring "
              + ring.rangeCount());
    }
    List<List<Integer>> voters = new ArrayList<>(installed.rangeCount());
    for (int r = 0; r < installed.rangeCount(); r++) {
      voters.add(installed.replicas(r));
    }
    List<List<Integer>> next = List.copyOf(voters);
    post(
        () -> {
          Set<Integer> dropped = new java.util.TreeSet<>();
          for (int r = 0; r < next.size(); r++) {
            if (next.get(r).contains(self)) {
              replicated.put(r, next.get(r));
            } else if (replicated.remove(r) != null) {
              dropped.add(r);
            }
          }
          votersByRange = next;
          for (int range : dropped) {
            if (latches.joined(range)) {
              latches.leave(
                  range,
                  "no longer a voter of the range at ring version " + installed.ringVersion(),
                  true);
            }
            if (Boolean.TRUE.equals(candidacy.remove(range))) {
              sink.candidacy(range, false);
            }
            unreachable.remove(range);
          }
          if (viewSeen) {
            viewChanged();
          }
        });
  }

  /** The view changed: tell the core, publish routing's view, compete or step aside. */
  private void viewChanged() {
    tellCandidacy(true);
    routingView = currentView();
    rebalance(); // hands over what this node no longer prefers before it stops competing
    tellCandidacy(false);
  }

  /** The view on the event thread, with the ranges this node does not compete for. */
  private LeadershipView currentView() {
    Map<Integer, Set<Integer>> all = new HashMap<>(othersUnreachable);
    Set<Integer> own = notCompeting();
    if (!own.isEmpty()) {
      all.put(self, own);
    }
    return new LeadershipView(live, ready, Map.copyOf(all));
  }

  /**
   * The ranges this node does not compete for: those whose quorum it cannot reach, or, once it
   * stops, every range it replicates.
   */
  private Set<Integer> notCompeting() {
    return stop.begun() ? Set.copyOf(replicated.keySet()) : unreachable.snapshot();
  }

  /** Tells the core each replicated range whose candidacy became {@code now} in this view. */
  private void tellCandidacy(boolean now) {
    LeadershipView view = currentView();
    for (Map.Entry<Integer, List<Integer>> e : replicated.entrySet()) {
      boolean candidate = view.preferredHolder(e.getKey(), e.getValue()) == self;
      if (candidate == now && !Boolean.valueOf(now).equals(candidacy.get(e.getKey()))) {
        candidacy.put(e.getKey(), now);
        sink.candidacy(e.getKey(), now);
      }
    }
  }

  /**
   * The replica that should hold {@code range} in the view routing uses: the first live, ready
   * replica; -1 if none is (or no view arrived yet). Any thread.
   */
  public int preferredHolder(int range) {
    return routingView.preferredHolder(range, votersByRange.get(range));
  }

  /** The ranges this node does not compete for now: it cannot reach a quorum of their replicas. */
  public Set<Integer> unreachableRanges() {
    return routingView.unreachable().getOrDefault(self, Set.of());
  }

  /** The live members in the view routing uses. Any thread. */
  public Set<Integer> liveMembers() {
    return routingView.live();
  }

  /** Whether this node holds range {@code range}'s term now (it may still wait for its lease). */
  public boolean holds(int range) {
    return held.holds(range);
  }

  /** Ranges whose term this node holds now. */
  public int rangesHeld() {
    return held.count();
  }

  /** Successful range lease renewals so far. */
  public long renewals() {
    return keeper.renewals();
  }

  /** Terms this node released on purpose and marked released (a successor may skip its wait). */
  public long releasesMarked() {
    return held.releasesMarked();
  }

  /** Terms this node won whose bump found the predecessor's release mark (no wait). */
  public long termsAfterRelease() {
    return held.termsAfterRelease();
  }

  /** Leases the ZooKeeper session carried through a suspension ({@link LeaseKeeper}). */
  public long leasesKeptThroughSuspension() {
    return keeper.keptThroughSuspension();
  }

  /** The longest suspension a lease was carried through, in nanoseconds. */
  public long longestSuspensionNanos() {
    return keeper.longestSuspensionNanos();
  }

  /**
   * This node's hand-backs with a shipment so far (docs/PROTOCOL.md "Hand-off instead of a scan").
   */
  public HandBackCounts handBacks() {
    return handOvers.counts();
  }

  /** ZooKeeper multis sent to renew leases so far. */
  public long renewalBatches() {
    return keeper.renewalBatches();
  }

  /**
   * The replica of {@code range} that should hold it given the current view: the first, in the
   * range's order, that is live and ready; -1 if none is.
   */
  public static int preferredHolder(List<Integer> replicas, Set<Integer> live, Set<Integer> ready) {
    return new LeadershipView(live, ready, Map.of()).preferredHolder(-1, replicas);
  }

  /**
   * Runs {@code task} on the event thread; while the node stops, then checks whether the stop's
   * hand-offs are all over (every change of theirs is such a task).
   */
  private void post(Runnable task) {
    events.post(
        () -> {
          task.run();
          stop.afterEvent();
        });
  }

  private void rebalance() {
    LeadershipView view = currentView();
    for (Map.Entry<Integer, List<Integer>> e : replicated.entrySet()) {
      int range = e.getKey();
      int preferredHolder = view.preferredHolder(range, e.getValue());
      boolean preferred = preferredHolder == self;
      if (preferred && !latches.joined(range)) {
        latches.join(range);
      } else if (!preferred && latches.joined(range) && !handOvers.underWay(range)) {
        String why =
            stop.begun()
                ? "node stopping"
                : unreachable.contains(range)
                    ? "steps down: no answer from a quorum of its replicas"
                    : preferredHolder < 0
                        ? "no replica is preferred"
                        : "replica " + preferredHolder + " is preferred";
        // Not a step-down nor a stop: a hand-back to a returning node (the absence limit applies).
        boolean returning = !unreachable.contains(range) && !stop.begun();
        handOvers.handOver(range, preferredHolder, returning, why);
      }
    }
  }

  private void rejoinLater(int range) {
    renewer.schedule(() -> post(this::rebalance), 200, TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    close(true);
  }

  /**
   * Graceful stop (docs/PROTOCOL.md "A graceful stop hands off"; {@link LeadershipStop}): hands
   * over every range the node holds as a step-down does — with hand-offs on, a drain and a shipment
   * to the successor, so that when this node comes back it can take the range back by an import —
   * waits for those hand-offs at most the stop wait, then leaves every latch still joined plainly
   * (ending every lease) and stops; returns once the creations of their entries are answered, so
   * the caller may close the ZooKeeper client.
   *
   * @param handOver false: release every range plainly at once (the node's core failed: it ships
   *     nothing)
   */
  public void close(boolean handOver) {
    stop.run(
        handOver,
        () -> {
          latches.awaitCreations();
          keeper.close();
          stopThreads();
        });
  }

  /**
   * Ranges a graceful stop handed off (the core shipped the term it held to a successor), and those
   * it released plainly (docs/OPERATIONS.md {@code frsm.shutdown.ranges}).
   */
  public long stopRangesHandedOff() {
    return stop.handedOff();
  }

  /** Ranges held at a graceful stop that were released plainly: their successors scan. */
  public long stopRangesReleased() {
    return stop.released();
  }

  /** What a graceful stop does to this leadership's state (event thread, but termsHeld). */
  private final class StopDropOut implements LeadershipStop.Leadership {
    @Override
    public Map<Integer, Long> heldTerms() {
      Map<Integer, Long> terms = new java.util.TreeMap<>();
      for (int range : latches.joinedRanges()) {
        TermGrant g = held.grant(range);
        if (g != null) {
          terms.put(range, g.term());
        }
      }
      return terms;
    }

    @Override
    public void dropOut() {
      publishUnreachable.accept(Set.copyOf(replicated.keySet()));
      if (viewSeen) { // without a view no latch was joined: nothing to hand over
        viewChanged(); // every range is now another replica's: rebalance hands over each held one
      }
    }

    @Override
    public boolean handingOff(int range) {
      return handOvers.underWay(range);
    }

    @Override
    public boolean shipped(int range, long term) {
      return handOvers.shipped(range, term);
    }

    @Override
    public void releaseRest() {
      handOvers.releaseAll("node stopping");
      events.closeFromWithin();
    }

    @Override
    public int termsHeld() {
      return held.count();
    }
  }

  /** Forgets every latch without touching ZooKeeper (the node is killed; its session ends). */
  public void abandon() {
    held.clear();
    stopThreads();
    keeper.close();
  }

  private void stopThreads() {
    events.shutdownNow();
    renewer.shutdownNow();
    zooKeeperCalls.shutdownNow();
  }
}
