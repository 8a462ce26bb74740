package io.frsm.server.node;

import io.frsm.client.SessionCounters;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.ReadMode;
import io.frsm.server.zk.RangeLeadership;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * The node's meters (docs/OPERATIONS.md "Metrics and health", table "Node"). Operation latencies
 * are recorded as replies complete; everything the core counts is read from the snapshot its loop
 * publishes ({@link CoreShards#stats()}), never from the core itself, which belongs to the loop
 * thread. The meters are removed again on {@link #close()}, so a node restarted in the same JVM and
 * registry binds fresh ones instead of finding its predecessor's.
 */
final class NodeMetrics implements AutoCloseable {
  /** Tag values of {@code frsm.operations}, in the order of {@link #typeIndex}. */
  private static final List<String> TYPES = List.of("get", "create", "cas", "delete", "fence");

  /** In the order of {@link #outcomeIndex}. */
  private static final List<String> OUTCOMES =
      List.of("ok", "mismatch", "exists", "unknown", "not_executed");

  private final MeterRegistry registry;
  private final Supplier<CoreShards> driver;
  private final List<Meter> meters = new CopyOnWriteArrayList<>();
  private final Timer[][] operations = new Timer[TYPES.size()][OUTCOMES.size()];

  /** {@code frsm.reads.latency} by {@link ReadMode} ordinal. */
  private final Timer[] readLatency = new Timer[ReadMode.values().length];

  /** {@code frsm.reads.latency{mode=forwarded}}: gets this node sent on to the key's leader. */
  private final Timer forwardedReadLatency;

  private final Supplier<RangeLeadership> leadership;
  private final Counter[] routed = new Counter[Routed.values().length];

  /** How an operation this node did not coordinate left it. */
  enum Routed {
    /** An embedded client's operation sent on to the key's leader. */
    FORWARDED,
    /** A thin client told to ask the key's leader. */
    REDIRECTED,
    /**
     * An operation queued here while this node held the key's range, routed again because the node
     * gave the range up before coordinating it (then forwarded, redirected or run here).
     */
    REROUTED
  }

  /** {@code driver} and {@code leadership} yield null until the cluster formed. */
  NodeMetrics(
      MeterRegistry registry,
      Supplier<CoreShards> driver,
      Supplier<RangeLeadership> leadership,
      SessionCounters sessions,
      LongSupplier refusedPeerFrames) {
    this.registry = registry;
    this.driver = driver;
    this.leadership = leadership;
    HandOffMeters.register(registry, leadership, driver).forEach(this::add);
    add(
        FunctionCounter.builder(
                "frsm.core.operation.errors", this, m -> m.shards(CoreShards::operationErrors))
            .description(
                "client operations the core failed on, answered with an error; the node went on")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.peer.messages.refused", this, m -> m.shards(CoreShards::refusedPeerMessages))
            .description("peer messages dropped for a field out of range (key, value, range)")
            .tag("stage", "admission")
            .register(registry));
    counts.add(refusedPeerFrames); // held weakly by its counter, as in counter(): keep it
    add(
        FunctionCounter.builder(
                "frsm.peer.messages.refused", refusedPeerFrames, LongSupplier::getAsLong)
            .description("peer frames the transport refused; each closed its connection")
            .tag("stage", "decode")
            .register(registry));
    for (Routed how : Routed.values()) {
      routed[how.ordinal()] =
          add(
              Counter.builder("frsm.operations.routed")
                  .description("operations sent to the key's range leader instead of run here")
                  .tag("how", how.name().toLowerCase(Locale.ROOT))
                  .register(registry));
    }
    add(
        FunctionCounter.builder("frsm.client.cas.unsent", sessions, SessionCounters::casUnsent)
            .description(
                "CAS and deletes of this node's embedded clients answered by a read, not sent:"
                    + " they expected a version older than one the client had seen")
            .register(registry));
    add(
        FunctionCounter.builder("frsm.client.reads.rerun", sessions, SessionCounters::readsRerun)
            .description(
                "gets of this node's embedded clients run again: they came back older than the"
                    + " client's read before them")
            .register(registry));
    add(
        Gauge.builder("frsm.ranges.led", this, m -> m.leadership(RangeLeadership::rangesHeld))
            .description("ranges whose term this node holds")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.lease.renewals", this, m -> m.leadership(RangeLeadership::renewals))
            .description("successful range lease renewals (all of a node's in one multi)")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.lease.kept_through_suspension",
                this,
                m -> m.leadership(RangeLeadership::leasesKeptThroughSuspension))
            .description(
                "range leases the ZooKeeper session carried through a suspended connection")
            .register(registry));
    add(
        Gauge.builder(
                "frsm.lease.longest_suspension",
                this,
                m -> m.leadership(RangeLeadership::longestSuspensionNanos) / 1e9)
            .description("the longest ZooKeeper suspension a range lease was carried through")
            .baseUnit("seconds")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.lease.handovers", this, m -> m.leadership(RangeLeadership::releasesMarked))
            .description("terms this node handed over on purpose and marked released")
            .tag("side", "released")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.lease.handovers", this, m -> m.leadership(RangeLeadership::termsAfterRelease))
            .description("terms this node won from a released predecessor, without the wait")
            .tag("side", "taken_without_wait")
            .register(registry));
    for (int t = 0; t < TYPES.size(); t++) {
      for (int o = 0; o < OUTCOMES.size(); o++) {
        operations[t][o] =
            add(
                Timer.builder("frsm.operations")
                    .description("client operations from submit to reply")
                    .tag("type", TYPES.get(t))
                    .tag("outcome", OUTCOMES.get(o))
                    .publishPercentileHistogram()
                    .minimumExpectedValue(Duration.ofNanos(500))
                    .maximumExpectedValue(Duration.ofSeconds(10))
                    .register(registry));
      }
    }
    for (ReadMode mode : ReadMode.values()) {
      readLatency[mode.ordinal()] = add(readTimer(mode.name().toLowerCase(Locale.ROOT)));
    }
    forwardedReadLatency = add(readTimer("forwarded"));
    coreCounter("frsm.cas.rounds", "mode", "warm", CoreStats::casWarm, "CAS answered by accepts");
    coreCounter("frsm.cas.rounds", "mode", "cold", CoreStats::casCold, "CAS that ran a prepare");
    coreCounter(
        "frsm.cas.mismatches",
        "served",
        "leader_only",
        CoreStats::mismatchesLeaderOnly,
        "CAS and deletes failed as mismatches from the local cell under the lease, no round");
    coreCounter(
        "frsm.reads", "mode", "leader_only", CoreStats::readsLeaderOnly, "gets by how served");
    coreCounter("frsm.reads", "mode", "quorum", CoreStats::readsQuorum, "gets by how served");
    coreCounter(
        "frsm.reads",
        "mode",
        "mutating_quorum",
        CoreStats::readsMutatingQuorum,
        "gets by how served");
    coreCounter(
        "frsm.paxos.messages.sent",
        "type",
        "prepare",
        CoreStats::preparesSent,
        "prepares and accepts the node's rounds sent");
    coreCounter(
        "frsm.paxos.messages.sent",
        "type",
        "accept",
        CoreStats::acceptsSent,
        "prepares and accepts the node's rounds sent");
    coreCounter(
        "frsm.scan.keys.settled",
        "by",
        "scan",
        CoreStats::keysSettledByScan,
        "keys a new range holder's scan settled, in scan order or pulled forward by an operation");
    coreCounter(
        "frsm.scan.keys.settled",
        "by",
        "pull",
        CoreStats::keysSettledByPull,
        "keys a new range holder's scan settled, in scan order or pulled forward by an operation");
    coreCounter(
        "frsm.scan.keys.skipped",
        "reason",
        "unanswered",
        CoreStats::keysSkippedByScan,
        "keys a new range holder's scan left unsettled after reads that did not answer (served by"
            + " rounds until their chosen value is learned)");
    add(
        FunctionCounter.builder(
                "frsm.scan.pull.settle.seconds", this, m -> m.stats().pullSettleNanos() / 1e9)
            .description("time from each pull to its key settled, summed")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.settle.reads.retried", this, m -> m.stats().settleReadRetries())
            .description("membership settle reads that ended without a value and were read again")
            .register(registry));
    add(
        FunctionCounter.builder(
                "frsm.settle.rounds.preempted", this, m -> m.stats().settleRoundsPreempted())
            .description("rounds of membership settle reads refused for a higher ballot promised")
            .register(registry));
    add(
        Gauge.builder("frsm.core.queue.depth", this, NodeMetrics::queueDepth)
            .description("inputs waiting for the core's loop")
            .register(registry));
    add(
        Gauge.builder("frsm.core.queue.depth.max", this, NodeMetrics::deepestQueue)
            .description("inputs waiting for the busiest core shard")
            .register(registry));
  }

  /**
   * One get latency timer per serving mode: the core's modes (the coordinator's view, the same
   * classification as {@code frsm.reads}) and {@code forwarded} (the forwarding node's view, from
   * forward to answer; the leader times its part again under its own mode).
   */
  private Timer readTimer(String mode) {
    return Timer.builder("frsm.reads.latency")
        .description("gets answered with a value or absence, by how they were served")
        .tag("mode", mode)
        .publishPercentileHistogram()
        .minimumExpectedValue(Duration.ofNanos(500))
        .maximumExpectedValue(Duration.ofSeconds(10))
        .register(registry);
  }

  /**
   * Records one client operation this node coordinated that ended with {@code outcome} after {@code
   * nanos}; {@code readMode} (null unless a get returned a value or absence) says how a get was
   * served.
   */
  void operationEnded(Operation operation, Outcome outcome, ReadMode readMode, long nanos) {
    operations[typeIndex(operation)][outcomeIndex(outcome)].record(nanos, TimeUnit.NANOSECONDS);
    if (readMode != null) {
      readLatency[readMode.ordinal()].record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * Records an embedded client's operation that this node forwarded to the key's leader and that
   * ended with {@code outcome} after {@code nanos}: only gets answered with a value or absence are
   * timed (under {@code mode=forwarded}); the leader counts every operation it coordinated.
   */
  void forwardedEnded(Operation operation, Outcome outcome, long nanos) {
    if (operation instanceof Operation.Get && outcome instanceof Outcome.ReadResult) {
      forwardedReadLatency.record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  void routed(Routed how) {
    routed[how.ordinal()].increment();
  }

  private double leadership(ToDoubleFunction<RangeLeadership> f) {
    RangeLeadership l = leadership.get();
    return l == null ? 0 : f.applyAsDouble(l);
  }

  /** Registers the per-peer message counters once the cluster formed. */
  void peersKnown(PeerMessageCounts counts) {
    for (int peer : counts.peers()) {
      peerCounter(counts, peer, "sent", c -> c.sentTo(peer));
      peerCounter(counts, peer, "received", c -> c.receivedFrom(peer));
    }
  }

  private void peerCounter(
      PeerMessageCounts counts, int peer, String direction, ToDoubleFunction<PeerMessageCounts> f) {
    add(
        FunctionCounter.builder("frsm.peer.messages", counts, f)
            .description("peer protocol messages by peer node and direction")
            .tag("peer", Integer.toString(peer))
            .tag("direction", direction)
            .register(registry));
  }

  private void coreCounter(
      String name,
      String tag,
      String value,
      ToDoubleFunction<CoreStats> field,
      String description) {
    add(
        FunctionCounter.builder(name, this, m -> field.applyAsDouble(m.stats()))
            .description(description)
            .tag(tag, value)
            .register(registry));
  }

  /** The core's latest published counters (zero before the cluster formed). */
  CoreStats stats() {
    CoreShards d = driver.get();
    return d == null ? CoreStats.ZERO : d.stats();
  }

  private double shards(ToDoubleFunction<CoreShards> f) {
    CoreShards d = driver.get();
    return d == null ? 0 : f.applyAsDouble(d);
  }

  private double queueDepth() {
    CoreShards d = driver.get();
    return d == null ? 0 : d.queueDepth();
  }

  private double deepestQueue() {
    CoreShards d = driver.get();
    return d == null ? 0 : d.deepestQueue();
  }

  /** A count one of the node's parts keeps (refusals at the edge, reloads), as a counter. */
  void counter(
      String name, String description, String tagKey, String tagValue, LongSupplier count) {
    counts.add(count); // a function counter holds its object weakly: a lambda would be collected
    add(
        FunctionCounter.builder(name, count, LongSupplier::getAsLong)
            .description(description)
            .tag(tagKey, tagValue)
            .register(registry));
  }

  /** A state one of the node's parts keeps (1 or 0, a level), as a gauge. */
  void gauge(String name, String description, java.util.function.DoubleSupplier value) {
    gauges.add(value); // a gauge holds its object weakly too
    add(
        Gauge.builder(name, value, java.util.function.DoubleSupplier::getAsDouble)
            .description(description)
            .register(registry));
  }

  /** What {@link #gauge} gauges read, held strongly for as long as the meters live. */
  private final List<java.util.function.DoubleSupplier> gauges =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  /** What {@link #counter} counters read, held strongly for as long as the meters live. */
  private final List<LongSupplier> counts = new java.util.concurrent.CopyOnWriteArrayList<>();

  private <M extends Meter> M add(M meter) {
    meters.add(meter);
    return meter;
  }

  private static int typeIndex(Operation operation) {
    if (operation instanceof Operation.Get) {
      return 0;
    } else if (operation instanceof Operation.Create) {
      return 1;
    } else if (operation instanceof Operation.Cas) {
      return 2;
    } else if (operation instanceof Operation.Delete) {
      return 3;
    } else if (operation instanceof Operation.Fence) {
      return 4;
    }
    throw new IllegalArgumentException("unknown operation " + operation);
  }

  private static int outcomeIndex(Outcome outcome) {
    if (outcome instanceof Outcome.Mismatch) {
      return 1;
    } else if (outcome instanceof Outcome.Exists) {
      return 2;
    } else if (outcome instanceof Outcome.Unknown) {
      return 3;
    } else if (outcome instanceof Outcome.NotExecuted) {
      return 4;
    } else if (outcome instanceof Outcome.Written
        || outcome instanceof Outcome.Deleted
        || outcome instanceof Outcome.ReadResult) {
      return 0;
    }
    throw new IllegalArgumentException("unknown outcome " + outcome);
  }

  @Override
  public void close() {
    for (Meter m : meters) {
      registry.remove(m);
    }
    meters.clear();
  }
}
