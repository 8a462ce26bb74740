package io.frsm.testkit.sim;

import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.ReadGate;
import io.frsm.consensus.core.Sabotage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The paper's Appendix C test: clients CAS-increment a few counters while the simulator crashes
 * nodes, drops, duplicates and delays messages and partitions the network; client 0 sometimes
 * deletes a key and re-creates it with its last value. An increment that ends with an unknown
 * outcome is resolved with {@code fence}: the counter's tag map says whether it took effect. At the
 * end every counter must equal the number of increments that took effect: none lost, none applied
 * twice.
 */
public final class CounterWorkload {
  private static final int CLIENTS = 4;
  private static final int KEYS = 3;
  private static final long WORKLOAD_NANOS = 1_000_000_000L;
  private static final long TICK_NANOS = 2_000_000L;
  private static final double DELETE_PROBABILITY = 0.03;

  private final Simulation sim;
  private final Key[] keys = new Key[KEYS];
  private final long[] tookEffect = new long[KEYS];
  private final Client[] clients = new Client[CLIENTS];
  private final long clientTimeoutNanos;
  private final long createSettleNanos;
  private long increments;
  private long unknowns;
  private long deletes;

  /** With leases on: the coordination service, its nemesis, the scan driver and the read check. */
  private final LeaseService leaseService;

  private final LeaseNemesis leaseNemesis;
  private final ReadChecker readChecker;

  /** Membership changes during the fault phase (null: none, the cluster keeps its nodes). */
  private final MembershipNemesis membership;

  private static final double READ_PROBABILITY = 0.3;

  /**
   * Keys created before the faults and never touched again (0: none): with them every new holder's
   * scan takes pages of reads, and the counters — the hot set — are read and written while it runs
   * (docs/PROTOCOL.md "Hot keys first").
   */
  private int coldKeys;

  /** Hand-offs instead of scans, with their own nemesis; null when off (the flag's default). */
  private final HandOffNemesis handOffNemesis;

  /** What a run did, for reports and the determinism test. */
  public record Result(
      long seed,
      String mix,
      long traceHash,
      long steps,
      long increments,
      long unknownsResolved,
      long deletes,
      long safetyChecks,
      long leaderOnlyReads,
      long readsChecked,
      long grantsAfterRelease,
      long callerThreadReads,
      long ringVersionsPublished,
      long stepDowns,
      long keysPulledForward,
      long handOffsShipped,
      long handOffsEntered,
      long handOffsDeclined,
      long durableBasesRestored,
      long coveringShipments,
      long coveredKeysChecked,
      long keysClassified,
      long leaderOnlyKeptThroughVoterChanges,
      long leaderOnlyKeptAcrossMoreThanOneVoter,
      long holderKills,
      long entryBasesReached,
      long entryBaseRecordsWritten,
      long handOffsEnteredOnEntryBase) {}

  /** Membership changes at {@code operationsPerSecond}, broken by {@code mutations}. */
  record MembershipRun(double operationsPerSecond, Set<MembershipMutation> mutations) {}

  private CounterWorkload(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      boolean leases,
      java.util.function.UnaryOperator<ReadGate> tamper,
      int coreShards,
      MembershipRun membershipRun,
      Consumer<Simulation> setup) {
    this(seed, mix, sabotage, leases, tamper, coreShards, membershipRun, setup, 0, 0);
  }

  /**
   * @param handOffsPerSecond above 0: hand-off instead of a scan on ({@link
   *     CoreConfig.Modes#handOff}) and a {@link HandOffNemesis} at this rate; leases must be on
   */
  private CounterWorkload(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      boolean leases,
      java.util.function.UnaryOperator<ReadGate> tamper,
      int coreShards,
      MembershipRun membershipRun,
      Consumer<Simulation> setup,
      double handOffsPerSecond,
      int handOffMaxKeys) {
    CoreConfig.Builder builder =
        (leases ? Simulation.simConfig(mix.nodes()) : Simulation.simConfig(seed, mix))
            .toBuilder().sabotage(sabotage);
    if (leases) {
      CoreConfig plain = builder.build();
      builder
          .leases(simLeases())
          .placement(Placement.splitAt(List.of(0L), plain.placement().replicas(0)));
    }
    if (handOffsPerSecond > 0) {
      CoreConfig.Modes modes = CoreConfig.Modes.DEFAULT.withHandOff(true);
      builder.modes(handOffMaxKeys > 0 ? modes.withHandOffMaxKeys(handOffMaxKeys) : modes);
    }
    CoreConfig config = builder.build();
    this.sim = new Simulation(seed, mix, config, TICK_NANOS, SimStorage.MEMORY, coreShards);
    if (tamper != null) {
      sim.serveReadsOnCallerThreads(tamper);
    } else if (leases && Math.floorMod(seed, 2) == 1) {
      // Odd seeds read as the embedded client does: on the caller's thread where the core would
      // serve the read from its local cell (CallerThreadReads), racing the core's thread.
      sim.serveReadsOnCallerThreads();
    }
    if (leases) {
      SimRandom leaseRandom = new SimRandom(seed ^ 0x1EA5EL);
      // As the node runs them (consensus.stepDownAfter = L/2): a holder that cannot reach a
      // quorum of a range's replicas hands it over.
      sim.watchQuorums(simLeases().lease().dividedBy(2));
      this.leaseService = new LeaseService(sim, leaseRandom.fork());
      this.leaseNemesis =
          handOffsPerSecond > 0
              // Calmer, so that hand-off chains complete among the other faults.
              ? new LeaseNemesis(sim, leaseService, leaseRandom.fork(), 2, 1, 1, 1)
              : new LeaseNemesis(sim, leaseService, leaseRandom.fork(), 4, 4, 2, 4);
      this.readChecker = new ReadChecker();
      readChecker.install(sim);
      // Forked last, so that runs without hand-offs draw exactly as before (their trace hashes).
      this.handOffNemesis =
          handOffsPerSecond > 0
              ? new HandOffNemesis(sim, leaseService, leaseRandom.fork(), handOffsPerSecond, 0.2)
              : null;
    } else {
      this.handOffNemesis = null;
      this.leaseService = null;
      this.leaseNemesis = null;
      this.readChecker = null;
    }
    this.membership =
        membershipRun == null
            ? null
            : MembershipNemesis.install(
                sim,
                leaseService,
                new SimRandom(seed ^ 0x3E3B3E75L),
                membershipRun.operationsPerSecond(),
                membershipRun.mutations());
    this.clientTimeoutNanos =
        config.boundedDelay().toNanos() + 2 * config.roundTimeout().toNanos() + 10_000_000L;
    this.createSettleNanos = config.boundedDelay().toNanos() + 2 * mix.skewMaxMicros() * 1000 + 1;
    for (int k = 0; k < KEYS; k++) {
      keys[k] = Key.of(("counter-" + k).getBytes(StandardCharsets.US_ASCII));
    }
    SimRandom clientRandom = new SimRandom(seed ^ 0x5DEECE66DL);
    for (int c = 0; c < CLIENTS; c++) {
      clients[c] = new Client(c, clientRandom.fork());
    }
    setup.accept(sim);
  }

  public static Result run(long seed) {
    return run(seed, FaultMix.forSeed(seed), Set.of());
  }

  public static Result run(long seed, FaultMix mix, Set<Sabotage> sabotage) {
    return new CounterWorkload(seed, mix, sabotage, false, null, 1, null, sim -> {}).execute();
  }

  /**
   * The workload with range leases on: clients go to the range holder they last heard of (so some
   * go to a holder that was just replaced), 30 % of their operations are reads, and the lease
   * nemesis pauses processes, forces handovers and cuts nodes from the coordination service.
   */
  public static Result runWithLeases(long seed, FaultMix mix, Set<Sabotage> sabotage) {
    return runWithLeases(seed, mix, sabotage, 1);
  }

  /**
   * The workload with leases plus {@code coldKeys} keys created before the faults and never touched
   * again: each scan of a new holder pages through them while the clients read and increment the
   * counters, so operations on the counters pull them forward (docs/PROTOCOL.md "Hot keys first").
   */
  public static Result runWithLeasesAndColdKeys(
      long seed, FaultMix mix, Set<Sabotage> sabotage, int coldKeys) {
    CounterWorkload workload =
        new CounterWorkload(seed, mix, sabotage, true, null, 1, null, sim -> {});
    workload.coldKeys = coldKeys;
    return workload.execute();
  }

  /**
   * The workload with leases, {@code coldKeys} untouched keys (so a scan costs pages of reads) and
   * hand-offs instead of scans at {@code handOffsPerSecond} ({@link HandOffNemesis}), either side
   * sometimes crashing in the middle of one.
   */
  static Result runWithHandOffs(
      long seed, FaultMix mix, Set<Sabotage> sabotage, int coldKeys, double handOffsPerSecond) {
    return runWithHandOffs(seed, mix, sabotage, coldKeys, handOffsPerSecond, 0);
  }

  /**
   * As {@link #runWithHandOffs(long, FaultMix, Set, int, double)}, with a hand-off declined by a
   * holder that wrote more than {@code handOffMaxKeys} keys in its term (0: the default cap).
   */
  static Result runWithHandOffs(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      int coldKeys,
      double handOffsPerSecond,
      int handOffMaxKeys) {
    return runWithHandOffs(
        seed,
        mix,
        sabotage,
        coldKeys,
        handOffsPerSecond,
        handOffMaxKeys,
        DurableBases.Mode.FLUSH_THEN_RECORD);
  }

  /**
   * As above, the nodes keeping their durable hand-off bases as {@code bases} says (a broken mode
   * is a mutation to catch).
   */
  static Result runWithHandOffs(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      int coldKeys,
      double handOffsPerSecond,
      int handOffMaxKeys,
      DurableBases.Mode bases) {
    CounterWorkload workload =
        new CounterWorkload(
            seed,
            mix,
            sabotage,
            true,
            null,
            1,
            null,
            sim -> sim.setDurableBases(bases),
            handOffsPerSecond,
            handOffMaxKeys);
    workload.coldKeys = coldKeys;
    return workload.execute();
  }

  /** A run with session-backed leases: its result, and how the sessions carried the leases. */
  record SessionRun(Result result, long creditedRenewals, long bridged, long restarts) {}

  /**
   * The workload with leases backed by the holders' sessions ({@link
   * LeaseService#backLeasesWithSessions}): the lease nemesis (its forced handovers refused: a latch
   * cannot be taken from a live session) plus restarts of the service, twice a second.
   */
  static SessionRun runWithSessionBackedLeases(
      long seed, FaultMix mix, SessionBackedLeases.Mistake mistake) {
    CounterWorkload workload =
        new CounterWorkload(seed, mix, Set.of(), true, null, 1, null, sim -> {});
    workload.leaseService.backLeasesWithSessions(mistake, 2);
    Result r;
    try {
      r = workload.execute();
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + " " + workload.leaseService, e);
    }
    long[] credits = workload.leaseService.sessionCredits();
    return new SessionRun(r, credits[0], credits[1], workload.leaseService.restarts());
  }

  /**
   * The workload with leases, every node running {@code coreShards} core shards over the two ranges
   * (with two or more, each range's keys, term and lease live in their own core).
   */
  public static Result runWithLeases(
      long seed, FaultMix mix, Set<Sabotage> sabotage, int coreShards) {
    return new CounterWorkload(seed, mix, sabotage, true, null, coreShards, null, sim -> {})
        .execute();
  }

  /**
   * The workload with leases, every read first tried on the caller's thread through a gate the
   * cores publish to via {@code tamper} (teeth tests).
   */
  static Result runWithTamperedCallerReads(
      long seed, FaultMix mix, java.util.function.UnaryOperator<ReadGate> tamper) {
    return new CounterWorkload(seed, mix, Set.of(), true, tamper, 1, null, sim -> {}).execute();
  }

  /**
   * The workload of {@link #run(long)} ({@code leases} false) or {@link #runWithLeases(long,
   * FaultMix, Set)} ({@code leases} true), after {@code setup} saw the simulation it runs in.
   */
  static Result run(long seed, boolean leases, Consumer<Simulation> setup) {
    return new CounterWorkload(seed, FaultMix.forSeed(seed), Set.of(), leases, null, 1, null, setup)
        .execute();
  }

  /**
   * The workload ({@code leases} as in {@link #run(long, boolean, Consumer)}) with membership
   * changes during the fault phase ({@link MembershipNemesis}).
   */
  static Result runWithMembership(
      long seed, boolean leases, Set<Sabotage> sabotage, MembershipRun membership) {
    return runWithMembership(seed, leases, sabotage, membership, 1);
  }

  /**
   * As above, every node running {@code coreShards} core shards (see {@link
   * io.frsm.consensus.core.ShardRouting}).
   */
  static Result runWithMembership(
      long seed, boolean leases, Set<Sabotage> sabotage, MembershipRun membership, int coreShards) {
    return new CounterWorkload(
            seed, FaultMix.forSeed(seed), sabotage, leases, null, coreShards, membership, sim -> {})
        .execute();
  }

  /** L = 40 ms (docs/DESIGN.md's 2 s scaled to the 1 s workload), ρ = 10⁻³. */
  static io.frsm.consensus.core.LeaseConfig simLeases() {
    return new io.frsm.consensus.core.LeaseConfig(true, java.time.Duration.ofMillis(40), 1_000);
  }

  private int rangeOf(int k) {
    return sim.coreConfig().placement().rangeOf(keys[k]);
  }

  /** The node a client sends key {@code k} to: the holder it knows of, or the key's home node. */
  private int leaderOf(int k) {
    int holder = leaseService == null ? -1 : leaseService.holder(rangeOf(k));
    return holder >= 0 ? holder : sim.notStopped(Math.floorMod(k, sim.nodeCount()));
  }

  private Result execute() {
    if (leaseService != null) {
      leaseService.start();
    }
    // Create the counters before the faults start (a create is never retried blindly).
    for (int k = 0; k < KEYS; k++) {
      int key = k;
      boolean[] created = {false};
      Runnable[] attempt = new Runnable[1];
      attempt[0] =
          () ->
              sim.submit(
                  leaseService == null ? 0 : leaderOf(key),
                  new Operation.Create(keys[key], CounterValue.zero().encode()),
                  o -> {
                    if (o instanceof Outcome.Written) {
                      created[0] = true;
                    } else if (leaseService != null && o instanceof Outcome.NotExecuted) {
                      // No holder with a durable term yet: nothing was proposed, try again.
                      sim.schedule(5_000_000, attempt[0]);
                    } else {
                      throw new AssertionError("setup create of key " + key + " failed: " + o);
                    }
                  });
      attempt[0].run();
      sim.runUntil(() -> created[0], 5_000_000_000L, "setup of key " + key);
    }
    createColdKeys();
    sim.startFaults();
    if (handOffNemesis != null) {
      handOffNemesis.start();
    }
    if (leaseNemesis != null) {
      leaseNemesis.start();
    }
    long end = sim.nowNanos() + WORKLOAD_NANOS;
    for (Client c : clients) {
      c.stopAtNanos = end;
      sim.schedule(c.random.between(0, 2_000_000), c::next);
    }
    sim.runUntil(() -> sim.nowNanos() >= end, end + 1, "workload end");
    sim.stopFaults();
    if (handOffNemesis != null) {
      handOffNemesis.stop();
    }
    if (leaseNemesis != null) {
      leaseNemesis.stop();
    }
    sim.runUntil(this::allClientsFinished, end + 60_000_000_000L, "clients finishing");
    verifyCounters();
    return new Result(
        sim.seed(),
        sim.faults().name() + "/n=" + sim.nodeCount(),
        sim.traceHash(),
        sim.steps(),
        increments,
        unknowns,
        deletes,
        sim.checker().checks(),
        sim.leaderOnlyReads() + sim.callerThreadReads(),
        readChecker == null ? 0 : readChecker.readsChecked(),
        leaseService == null ? 0 : leaseService.grantsAfterRelease(),
        sim.callerThreadReads(),
        membership == null ? 0 : membership.orchestrator().versionsPublished(),
        leaseService == null ? 0 : leaseService.stepDowns(),
        keysPulledForward(),
        leaseService == null ? 0 : leaseService.handOffsShipped(),
        sim.handOffsEntered(),
        leaseService == null ? 0 : leaseService.handOffsDeclined(),
        sim.durableBasesRestored(),
        sim.coveringShipments(),
        sim.coveredKeysChecked(),
        keysClassified(),
        sim.leaderOnlyKeptThroughVoterChanges()[0],
        sim.leaderOnlyKeptThroughVoterChanges()[1],
        handOffNemesis == null ? 0 : handOffNemesis.kills(),
        sim.entryBasesReached(),
        sim.entryBaseRecordsWritten(),
        sim.handOffsEnteredOnEntryBase());
  }

  /**
   * Keys counted as written for a predecessor's ballots by the cores running now (a crashed core's
   * count is lost with it).
   */
  private long keysClassified() {
    long total = 0;
    for (int node = 0; node < sim.nodeCount(); node++) {
      total += sim.keysClassified(node);
    }
    return total;
  }

  /** Keys pulled forward by the cores running now (a crashed core's count is lost with it). */
  private long keysPulledForward() {
    long total = 0;
    for (int node = 0; node < sim.nodeCount(); node++) {
      total += sim.stats(node).keysSettledByPull();
    }
    return total;
  }

  /** Creates the {@link #coldKeys} at their ranges' holders, all at once; before the faults. */
  private void createColdKeys() {
    int[] pending = {coldKeys};
    for (int i = 0; i < coldKeys; i++) {
      Key key = Key.of(("cold-" + i).getBytes(StandardCharsets.US_ASCII));
      int range = sim.coreConfig().placement().rangeOf(key);
      Runnable[] attempt = new Runnable[1];
      attempt[0] =
          () -> {
            int holder = leaseService.holder(range);
            sim.submit(
                holder >= 0 ? holder : 0,
                new Operation.Create(key, CounterValue.zero().encode()),
                o -> {
                  if (o instanceof Outcome.Written) {
                    pending[0]--;
                  } else if (o instanceof Outcome.NotExecuted) {
                    sim.schedule(5_000_000, attempt[0]); // no holder with a durable term yet
                  } else {
                    throw new AssertionError("setup create of " + key + " failed: " + o);
                  }
                });
          };
      attempt[0].run();
    }
    sim.runUntil(() -> pending[0] == 0, sim.nowNanos() + 30_000_000_000L, "cold keys created");
  }

  private boolean allClientsFinished() {
    for (Client c : clients) {
      if (!c.finished) {
        return false;
      }
    }
    return true;
  }

  private void verifyCounters() {
    for (int k = 0; k < KEYS; k++) {
      int key = k;
      Object[] result = {null};
      Runnable[] read = new Runnable[1];
      Consumer<Outcome> onReply =
          o -> {
            if (leaseService != null && o instanceof Outcome.NotExecuted) {
              sim.schedule(5_000_000, read[0]); // the holder is changing
            } else if (membership != null && o instanceof Outcome.Unknown) {
              // A settle of a membership change still running re-commits the key under a higher
              // ballot, so the read's quench may lose to it: a read that ends unknown is retried.
              sim.schedule(5_000_000, read[0]);
            } else {
              result[0] = o;
            }
          };
      int[] attempt = {0};
      read[0] =
          () -> {
            int node = leaseService == null ? sim.notStopped(0) : leaderOf(key);
            if (membership == null) {
              sim.submit(node, new Operation.Get(keys[key]), onReply);
              return;
            }
            // The node asked may leave the cluster and stop meanwhile: ask another after a timeout.
            sim.call(
                sim.notStopped(node + attempt[0]++),
                new Operation.Get(keys[key]),
                clientTimeoutNanos,
                (o, timedOut) -> {
                  if (timedOut) {
                    read[0].run();
                  } else {
                    onReply.accept(o);
                  }
                });
          };
      read[0].run();
      sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "final read");
      if (!(result[0] instanceof Outcome.ReadResult r) || r.value().isEmpty()) {
        throw new AssertionError(sim.failureMessage("final read of key " + key + ": " + result[0]));
      }
      CounterValue value = CounterValue.decode(r.value().get().value());
      if (value.count() != tookEffect[key]) {
        throw new AssertionError(
            sim.failureMessage(
                "counter "
                    + key
                    + " is "
                    + value.count()
                    + " but "
                    + tookEffect[key]
                    + " increments took effect ("
                    + (value.count() > tookEffect[key] ? "applied twice" : "lost")
                    + ")"));
      }
    }
  }

  private static String describe(Object o) {
    if (o instanceof Operation.Cas c) {
      return "Cas " + c.key() + " " + c.expected() + " -> " + CounterValue.decode(c.value());
    }
    if (o instanceof Outcome.ReadResult r) {
      return "Read " + r.value().map(CounterWorkload::describeValue);
    }
    if (o instanceof Outcome.Mismatch m) {
      return "Mismatch " + m.current().map(CounterWorkload::describeValue);
    }
    return String.valueOf(o);
  }

  private static String describeValue(Versioned v) {
    return v.version() + "=" + CounterValue.decode(v.value());
  }

  /** One client: at most one operation in flight, resolving unknown outcomes before moving on. */
  private final class Client {
    final int id;
    final SimRandom random;
    final Versioned[] known = new Versioned[KEYS];
    long stopAtNanos;
    long seq;
    boolean finished;
    boolean preferOtherNode;

    /** With leases: the holder this client last looked up per key (refreshed now and then). */
    final int[] cachedLeader = {-1, -1, -1};

    Client(int id, SimRandom random) {
      this.id = id;
      this.random = random;
    }

    void next() {
      if (sim.nowNanos() >= stopAtNanos) {
        finished = true;
        return;
      }
      int k = random.nextInt(KEYS);
      Versioned v = known[k];
      if (v == null || (leaseService != null && random.chance(READ_PROBABILITY))) {
        call(
            k,
            new Operation.Get(keys[k]),
            o -> {
              if (o instanceof Outcome.ReadResult r) {
                known[k] = r.value().orElse(null);
              }
              idle();
            });
      } else if (id == 0 && random.chance(DELETE_PROBABILITY)) {
        deleteAndRecreate(k, v);
      } else {
        increment(k, v);
      }
    }

    void idle() {
      sim.schedule(random.between(0, 3_000_000), this::next);
    }

    void increment(int k, Versioned v) {
      long s = ++seq;
      CounterValue next = CounterValue.decode(v.value()).increment(id, s);
      increments++;
      call(
          k,
          new Operation.Cas(keys[k], v.version(), next.encode()),
          o -> {
            if (o instanceof Outcome.Written w) {
              tookEffect[k]++;
              known[k] = new Versioned(next.encode(), w.version());
              idle();
            } else if (o instanceof Outcome.Mismatch m) {
              known[k] = m.current().orElse(null);
              idle();
            } else if (o instanceof Outcome.NotExecuted) {
              idle();
            } else if (o instanceof Outcome.Unknown) {
              unknowns++;
              fenceUntilPresent(
                  k,
                  present -> {
                    long last = CounterValue.decode(present.value()).lastSeq(id);
                    if (last > s) {
                      throw new AssertionError("client " + id + " tag " + last + " > " + s);
                    }
                    if (last == s) {
                      tookEffect[k]++;
                    }
                    idle();
                  });
            } else {
              throw new AssertionError("unexpected CAS outcome " + o);
            }
          });
    }

    /** Fences until the key is present (the deleter re-creates it), then hands the value on. */
    void fenceUntilPresent(int k, Consumer<Versioned> then) {
      call(
          k,
          new Operation.Fence(keys[k]),
          o -> {
            if (o instanceof Outcome.ReadResult r && r.value().isPresent()) {
              known[k] = r.value().get();
              then.accept(r.value().get());
            } else {
              sim.schedule(5_000_000, () -> fenceUntilPresent(k, then));
            }
          });
    }

    /** Fences until the fence itself succeeds; hands on the value or absent. */
    void fence(int k, Consumer<Optional<Versioned>> then) {
      call(
          k,
          new Operation.Fence(keys[k]),
          o -> {
            if (o instanceof Outcome.ReadResult r) {
              then.accept(r.value());
            } else {
              sim.schedule(5_000_000, () -> fence(k, then));
            }
          });
    }

    void deleteAndRecreate(int k, Versioned v) {
      deletes++;
      call(
          k,
          new Operation.Delete(keys[k], v.version()),
          o -> {
            if (o instanceof Outcome.Deleted) {
              recreate(k, v.value());
            } else if (o instanceof Outcome.Mismatch m) {
              known[k] = m.current().orElse(null);
              idle();
            } else if (o instanceof Outcome.NotExecuted) {
              idle();
            } else if (o instanceof Outcome.Unknown) {
              fence(
                  k,
                  now -> {
                    if (now.isEmpty()) {
                      recreate(k, v.value());
                    } else {
                      known[k] = now.get();
                      idle();
                    }
                  });
            } else {
              throw new AssertionError("unexpected delete outcome " + o);
            }
          });
    }

    void recreate(int k, byte[] value) {
      call(
          k,
          new Operation.Create(keys[k], value),
          o -> {
            if (o instanceof Outcome.Written w) {
              known[k] = new Versioned(value, w.version());
              idle();
            } else if (o instanceof Outcome.Exists e) {
              // Only this client re-creates: an earlier attempt of ours took effect.
              if (!java.util.Arrays.equals(e.current().value(), value)
                  && CounterValue.decode(e.current().value()).count()
                      < CounterValue.decode(value).count()) {
                throw new AssertionError("re-created key " + k + " holds an older count");
              }
              known[k] = e.current();
              idle();
            } else if (o instanceof Outcome.NotExecuted) {
              sim.schedule(2_000_000, () -> recreate(k, value));
            } else if (o instanceof Outcome.Unknown) {
              // A create's fate is known T + 2ε after it was issued.
              sim.schedule(
                  createSettleNanos,
                  () ->
                      fence(
                          k,
                          now -> {
                            if (now.isEmpty()) {
                              recreate(k, value);
                            } else {
                              known[k] = now.get();
                              idle();
                            }
                          }));
            } else {
              throw new AssertionError("unexpected create outcome " + o);
            }
          });
    }

    /**
     * Sends {@code op} to the key's home node (a random one after a timeout); a reply that does not
     * come within the client timeout counts as an unknown outcome.
     */
    void call(int k, Operation op, Consumer<Outcome> then) {
      // Fences (fail-over, resolving an unknown outcome) run on any node, as after a migration.
      // With leases every operation goes to the holder this client last heard of, which may have
      // been replaced since: that is how reads reach a node that still believes it leads.
      int node;
      if (leaseService != null) {
        if (preferOtherNode || cachedLeader[k] < 0 || random.chance(0.5)) {
          cachedLeader[k] = leaderOf(k);
        }
        node = cachedLeader[k];
      } else {
        node =
            preferOtherNode || op instanceof Operation.Fence
                ? random.nextInt(sim.nodeCount())
                : Math.floorMod(k, sim.nodeCount());
      }
      if (Boolean.getBoolean("frsm.sim.trace")) {
        System.out.println(
            sim.nowNanos() / 1000 + " client " + id + " -> n" + node + " " + describe(op));
        Consumer<Outcome> inner = then;
        then =
            o -> {
              System.out.println(
                  sim.nowNanos() / 1000 + " client " + id + " <- " + o + " for " + op);
              inner.accept(o);
            };
      }
      Consumer<Outcome> reply = then;
      sim.call(
          sim.notStopped(node),
          op,
          clientTimeoutNanos,
          (o, timedOut) -> {
            preferOtherNode = timedOut;
            reply.accept(o);
          });
    }
  }
}
