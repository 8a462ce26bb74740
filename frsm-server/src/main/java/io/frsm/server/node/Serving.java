package io.frsm.server.node;

import io.frsm.client.transport.LogThrottle;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Message;
import io.frsm.server.client.ClusterMembers;
import io.frsm.server.config.CorePlacement;
import io.frsm.server.config.NodeDefaults;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.RangeLeaders;
import io.frsm.server.zk.RangeLeadership;
import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;

/**
 * What a node runs once its cluster formed: the consensus core's shards, this node's side of range
 * leadership (which feeds the core), the watch of who leads each range, and the routing decision
 * made from both. Nothing before {@link #start} (then every query answers "none"); started at most
 * once, over one ring, and immutable from then on but for leadership ending, which happens at most
 * once (a stop, or a fatal error of the core, whichever comes first). Thread-safe.
 */
final class Serving {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  private record Parts(
      CoreShards core,
      RangeLeaders leaders,
      RangeLeadership leadership,
      RangeRouter ranges,
      Set<Integer> nodes) {}

  /** Null until started; published once, after every part runs. */
  private volatile Parts parts;

  /** Keeps the durable hand-off bases (with {@code consensus.handOff}); null otherwise. */
  private volatile HandOffBaseKeeper baseKeeper;

  private final AtomicBoolean leadershipEnded = new AtomicBoolean();

  /** How long a graceful stop waits for its hand-offs, and again for their base records. */
  private volatile Duration stopWait = Duration.ZERO;

  private volatile int self = -1;

  /**
   * The nodes of the installed ring version that are not in the shape (joined by a membership
   * change): their peer messages are taken too. Only grows: an ex-member's late replies are
   * harmless, and the acceptor refuses its stale rounds.
   */
  private volatile Set<Integer> joined = Set.of();

  private final LongAdder unknownSenders = new LongAdder();
  private final LogThrottle unknownSenderLog =
      new LogThrottle(LOG, Level.WARNING, 1, TimeUnit.SECONDS);

  /**
   * What a core runs on, fixed at the node's start: its id and storage, the transports it sends
   * through (and whose loops it may share), where it reports, and its settings that do not depend
   * on the ring.
   *
   * @param coreThreads core shards asked for (0: by the machine's CPUs)
   * @param leadersChanged runs after every change of a range's leader named in ZooKeeper (on the
   *     watch's thread; must not block)
   * @param onFatal called once if the core stops on a fatal error
   * @param silence drops what would make the acceptor write while disk space is low
   * @param handOffLimits what hand-backs may drain (with {@code consensus.handOff})
   * @param handOffBases the node's durable hand-off base records (docs/PROTOCOL.md "The durable
   *     base"): kept and restored with {@code consensus.handOff}, deleted without it
   */
  record Site(
      int self,
      NodeStorage storage,
      NodeTransports transports,
      NodeMetrics metrics,
      int coreThreads,
      CorePlacement placement,
      Duration tickInterval,
      Duration lease,
      Duration stepDownAfter,
      Runnable leadersChanged,
      Consumer<Throwable> onFatal,
      AcceptorSilence silence,
      io.frsm.server.zk.HandOffLimits handOffLimits,
      HandOffBaseRecords handOffBases) {}

  /**
   * Starts the core's shards over {@code ring} with {@code config}, then watches the range leaders
   * (routing in {@code members} follows them from now on) and starts range leadership, which feeds
   * the running core at once. REQUIRES: not started before; callers serialize (the formation lock).
   */
  void start(
      CoreConfig config,
      ClusterShape shape,
      Ring ring,
      Site site,
      CuratorFramework zk,
      ZkLayout layout,
      ClusterMembers members,
      java.util.function.Consumer<java.util.Set<Integer>> publishUnreachable,
      io.frsm.server.stream.HandOffDesk handOffs)
      throws Exception {
    PeerMessageCounts peerMessages =
        new PeerMessageCounts(shape.nodeIds().stream().filter(id -> id != site.self()).toList());
    site.metrics().peersKnown(peerMessages);
    int loopCount = site.transports().loops().loops().size();
    int shards = shardCount(site.self(), site.coreThreads(), ring.rangeCount());
    boolean coresOnLoops = site.placement().onTransportLoops(loopCount, shards);
    LOG.log(
        Level.INFO,
        "node {0}: {1} transport event loop(s), {2} consensus core shard(s) on {3}",
        site.self(),
        loopCount,
        shards,
        coresOnLoops ? "the event loops" : "threads of their own");
    RangeQuorums quorums = new RangeQuorums();
    CoreShards core =
        new CoreShards(
            site.self(),
            site.storage().boot(),
            config,
            shards,
            site.storage().cells(),
            site.storage().engine(),
            site.transports().peerSender(),
            site.tickInterval().toNanos(),
            peerMessages,
            coresOnLoops ? site.transports().loops().loops() : List.of(),
            site.onFatal(),
            site.stepDownAfter(),
            quorums,
            site.silence());
    HandOffBaseKeeper keeper = null;
    if (config.modes().handOff()) {
      keeper = new HandOffBaseKeeper(site.handOffBases(), site.storage().engine());
      core.keepHandOffBases(keeper);
    } else {
      // Without the mode no base is dropped at a grant: a record left from a run with the mode on
      // would outlive its premise.
      site.handOffBases().dropAll();
    }
    baseKeeper = keeper;
    stopWait = site.handOffLimits().stopWait();
    self = site.self();
    core.start();
    if (keeper != null) {
      // Before range leadership starts: each record reaches its shard ahead of any grant.
      for (io.frsm.consensus.core.Input.RestoreBase r : keeper.restorable()) {
        core.input(r);
      }
    }
    if (handOffs != null && config.modes().handOff()) {
      // A shipment received goes to the shard owning its range, in order with the grants.
      handOffs.importTo(
          (from, shipment) -> {
            core.input(new io.frsm.consensus.core.Input.ImportShipment(shipment));
            return true;
          });
    }
    RangeLeaders named = RangeLeaders.watch(zk, layout, site.leadersChanged());
    try {
      members.leaders(named::holder);
      RangeLeadership leadership =
          new RangeLeadership(
              zk,
              layout,
              site.self(),
              ring,
              site.lease(),
              config.leases().driftPartsPerMillion(),
              config.modes().handOff()
                  ? new CoreLeaseSink(core, handOffs, site.lease(), site.handOffLimits())
                  : new CoreLeaseSink(core),
              publishUnreachable);
      quorums.listen(leadership::quorumChanged);
      parts =
          new Parts(
              core,
              named,
              leadership,
              new RangeRouter(site.self(), ring, named, leadership),
              Set.copyOf(shape.nodeIds()));
    } catch (RuntimeException e) {
      named.close();
      throw e;
    }
  }

  /**
   * The core shards to run: as asked (0: a quarter of the CPUs), at most one per range of the ring
   * — a shard owning no range would only tick.
   */
  private static int shardCount(int self, int asked, int ranges) {
    int wanted =
        asked == 0 ? NodeDefaults.coreThreads(Runtime.getRuntime().availableProcessors()) : asked;
    if (wanted > ranges) {
      LOG.log(
          Level.WARNING,
          "node {0}: {1} core threads asked for, but the ring has {2} ranges; running {2}",
          self,
          wanted,
          ranges);
      return ranges;
    }
    return wanted;
  }

  /** The core's shards; null before {@link #start}. */
  CoreShards core() {
    Parts p = parts;
    return p == null ? null : p.core();
  }

  /** This node's range leadership; null before {@link #start}. */
  RangeLeadership leadership() {
    Parts p = parts;
    return p == null ? null : p.leadership();
  }

  /** Who should coordinate each key; null before {@link #start}. */
  RangeRouter ranges() {
    Parts p = parts;
    return p == null ? null : p.ranges();
  }

  /** Whether the core runs and takes client operations. */
  boolean coreServing() {
    CoreShards core = core();
    return core != null && core.serving();
  }

  /**
   * A peer's message for the core; before the start, dropped: Paxos tolerates lost messages. A
   * sender that is not a node of the cluster's shape is refused (counted, logged at most once a
   * second): only the shape's nodes take part in any range's quorum (docs/PROTOCOL.md "Peer
   * identity").
   */
  void receive(int from, Message message) {
    Parts p = parts;
    if (p == null) {
      return;
    }
    if (!p.nodes().contains(from) && !joined.contains(from)) {
      unknownSenders.increment();
      unknownSenderLog.log(
          "refused a peer message from node {0}, which is not in the cluster''s shape {1}",
          from, p.nodes());
      return;
    }
    p.core().receive(from, message);
  }

  /** A ring version was installed: its members may send peer messages from now on. */
  synchronized void placementInstalled(io.frsm.consensus.core.Placement installed) {
    java.util.Set<Integer> all = new java.util.TreeSet<>(joined);
    all.addAll(installed.nodes());
    joined = Set.copyOf(all);
  }

  /** Peer messages refused because their sender is not a node of the cluster's shape. */
  long unknownSenders() {
    return unknownSenders.sum();
  }

  /**
   * Ends range leadership unless it ended already. {@code graceful}: hand every held range over
   * (with {@code consensus.handOff} by a shipment, waiting at most the stop wait, then for the base
   * records those shipments reached at most as long again: docs/PROTOCOL.md "A graceful stop hands
   * off"), leave every latch, releasing each lease through the core, so successors start at once;
   * otherwise just stop renewing (the node is killed: its session's end removes the latch nodes,
   * successors wait out the lease).
   */
  void endLeadership(boolean graceful) throws InterruptedException {
    Parts p = parts;
    if (p != null && leadershipEnded.compareAndSet(false, true)) {
      if (graceful) {
        p.leadership().close(true);
        HandOffBaseKeeper keeper = baseKeeper;
        if (keeper != null && !keeper.awaitRecorded(stopWait)) {
          LOG.log(
              Level.WARNING,
              "node {0}: hand-off base records still waiting for their flush after {1}; those"
                  + " ranges will be scanned when the node comes back",
              self,
              stopWait);
        }
      } else {
        p.leadership().abandon();
      }
    }
  }

  /**
   * After a fatal error of the core: leaves every latch at once, releasing each lease through the
   * core as far as it still answers (it ships nothing: no hand-off), unless leadership ended.
   */
  void releaseLeadership() {
    Parts p = parts;
    if (p != null && leadershipEnded.compareAndSet(false, true)) {
      p.leadership().close(false);
    }
  }

  /** Graceful stop: new operations are refused, those running get up to {@code timeout}. */
  void drain(Duration timeout) {
    CoreShards core = core();
    if (core != null) {
      core.drain(timeout);
    }
  }

  /** Stops watching the range leaders. */
  void closeLeaderWatch() {
    Parts p = parts;
    if (p != null) {
      p.leaders().close();
    }
  }

  /** Stops the core's shards. */
  void stopCore() {
    CoreShards core = core();
    if (core != null) {
      core.stop();
    }
    HandOffBaseKeeper keeper = baseKeeper;
    if (keeper != null) {
      keeper.close(); // a record still waiting for its flush is not written: that range scans
    }
  }
}
