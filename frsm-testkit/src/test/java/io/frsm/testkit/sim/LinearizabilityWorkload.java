package io.frsm.testkit.sim;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Sabotage;
import io.frsm.testkit.history.Bytes;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryJsonWriter;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.Input;
import io.frsm.testkit.history.LinearizabilityChecker;
import io.frsm.testkit.history.OperationKind;
import io.frsm.testkit.history.Output;
import io.frsm.testkit.history.VersionedValue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Workload (b) of issue 3: several clients run random get / create / cas / delete / fence on a few
 * hot keys while the simulator injects the seed's fault mix. Every operation is recorded with the
 * simulator's virtual clock in a {@link HistoryRecorder}; at the end the {@link
 * LinearizabilityChecker} must find the history linearizable per key. The safety checker runs after
 * every step as in every simulation.
 *
 * <p>Clients keep at most one operation in flight (session order) and mostly send a key's
 * operations to its home node, sometimes to another one, so coordinators compete. A CAS or delete
 * uses the last version the client saw, sometimes a stale one on purpose. Keys start never created,
 * as the checker assumes.
 *
 * <p><b>Bounded effect delay, as a fast path only.</b> The checker is first told that an operation
 * with an unknown outcome takes effect, if at all, within {@link #maxEffectDelayNanos} of its call
 * ({@code T + 2ε} plus 100 ms of delivery slack): the node that stamps τ stops starting rounds for
 * the operation at {@code τ + T}. That bound is not a guarantee of the protocol, though: an accept
 * that reached only a minority leaves a leftover that a later prepare (another client's fence or
 * read) may adopt and settle arbitrarily later — the operation then takes effect at that point
 * (seeds 2007 and, with earlier read escalation, 1773 showed it). So a history the bounded check
 * rejects is checked again without the bound, which is the protocol's real contract; only a
 * rejection there (or a search that runs out of budget) fails the seed. The bounded pass keeps the
 * common case fast: without it the search is exponential in the number of unknown outcomes.
 */
public final class LinearizabilityWorkload {
  private static final int CLIENTS = 5;
  private static final int KEYS = 2;
  private static final long WORKLOAD_NANOS = 600_000_000L;
  private static final long TICK_NANOS = 2_000_000L;
  private static final long DELIVERY_SLACK_NANOS = 100_000_000L;

  private final Simulation sim;
  private final HistoryRecorder recorder;
  private final Key[] keys = new Key[KEYS];
  private final Client[] clients = new Client[CLIENTS];
  private final long clientTimeoutNanos;
  private final long maxEffectDelayNanos;
  private long unknowns;

  /** What a run did and the checker's verdict. */
  public record Result(
      long seed,
      String mix,
      long traceHash,
      long steps,
      int operations,
      long unknowns,
      List<io.frsm.testkit.history.Operation> history,
      CheckResult check) {}

  private LinearizabilityWorkload(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      SimStorage storage,
      Consumer<Simulation> setup) {
    CoreConfig config = Simulation.simConfig(seed, mix).toBuilder().sabotage(sabotage).build();
    this.sim = new Simulation(seed, mix, config, TICK_NANOS, storage);
    this.recorder = new HistoryRecorder(sim::nowNanos);
    this.clientTimeoutNanos =
        config.boundedDelay().toNanos() + 2 * config.roundTimeout().toNanos() + 10_000_000L;
    this.maxEffectDelayNanos = maxEffectDelayNanos(config, mix);
    for (int k = 0; k < KEYS; k++) {
      keys[k] = Key.of(("hot-" + k).getBytes(StandardCharsets.US_ASCII));
    }
    SimRandom clientRandom = new SimRandom(seed ^ 0x2545F4914F6CDD1DL);
    for (int c = 0; c < CLIENTS; c++) {
      clients[c] = new Client(c, clientRandom.fork());
    }
    setup.accept(sim);
  }

  /** {@code T + 2ε} plus the delivery slack explained in the class comment. */
  static long maxEffectDelayNanos(CoreConfig config, FaultMix mix) {
    return config.boundedDelay().toNanos() + 2 * mix.skewMaxMicros() * 1000 + DELIVERY_SLACK_NANOS;
  }

  public static Result run(long seed) {
    return run(seed, FaultMix.forSeed(seed), Set.of(), SimStorage.MEMORY);
  }

  /**
   * Runs one seed and checks its history.
   *
   * @throws AssertionError naming the seed if a safety check fails, the workload stalls, or the
   *     history is not linearizable (then the history is also written as JSON lines under {@code
   *     target/linearizability/})
   */
  public static Result run(long seed, FaultMix mix, Set<Sabotage> sabotage, SimStorage storage) {
    return run(seed, mix, sabotage, storage, sim -> {});
  }

  /**
   * {@link #run(long)} with membership changes at {@code operationsPerSecond} during the fault
   * phase ({@link MembershipNemesis}), broken by {@code mutations} and the core by {@code
   * sabotage}; {@code nemesis[0]} receives the nemesis (for its counters).
   */
  static Result runWithMembership(
      long seed,
      double operationsPerSecond,
      Set<MembershipMutation> mutations,
      Set<Sabotage> sabotage,
      MembershipNemesis[] nemesis) {
    return runWithMembership(
        seed, operationsPerSecond, mutations, sabotage, SimStorage.MEMORY, nemesis);
  }

  /** As above, each node (added ones too) storing its cells as {@code storage} says. */
  static Result runWithMembership(
      long seed,
      double operationsPerSecond,
      Set<MembershipMutation> mutations,
      Set<Sabotage> sabotage,
      SimStorage storage,
      MembershipNemesis[] nemesis) {
    return run(
        seed,
        FaultMix.forSeed(seed),
        sabotage,
        storage,
        sim ->
            nemesis[0] =
                MembershipNemesis.install(
                    sim, null, new SimRandom(seed ^ 0x3E3B3E75L), operationsPerSecond, mutations));
  }

  /** {@link #run(long)} after {@code setup} saw the simulation it runs in. */
  static Result run(long seed, Consumer<Simulation> setup) {
    return run(seed, FaultMix.forSeed(seed), Set.of(), SimStorage.MEMORY, setup);
  }

  private static Result run(
      long seed,
      FaultMix mix,
      Set<Sabotage> sabotage,
      SimStorage storage,
      Consumer<Simulation> setup) {
    LinearizabilityWorkload workload =
        new LinearizabilityWorkload(seed, mix, sabotage, storage, setup);
    try {
      return workload.execute();
    } finally {
      workload.sim.close();
    }
  }

  private Result execute() {
    sim.startFaults();
    long end = sim.nowNanos() + WORKLOAD_NANOS;
    for (Client c : clients) {
      c.stopAtNanos = end;
      sim.schedule(c.random.between(0, 2_000_000), c::next);
    }
    sim.runUntil(() -> sim.nowNanos() >= end, end + 1, "workload end");
    sim.stopFaults();
    sim.runUntil(this::allClientsFinished, end + 60_000_000_000L, "clients finishing");
    List<io.frsm.testkit.history.Operation> history = recorder.history();
    CheckResult check = LinearizabilityChecker.checkBoundedFirst(history, maxEffectDelayNanos);
    if (!check.isLinearizable()) {
      Path written = writeHistory(sim.seed(), history);
      throw new AssertionError(
          sim.failureMessage(
              "history of "
                  + history.size()
                  + " operations is "
                  + check.explain()
                  + "history written to "
                  + written));
    }
    return new Result(
        sim.seed(),
        sim.faults().name() + "/n=" + sim.nodeCount(),
        sim.traceHash(),
        sim.steps(),
        history.size(),
        unknowns,
        history,
        check);
  }

  /** Writes {@code history} to {@code target/linearizability/seed-<seed>.jsonl}. */
  static Path writeHistory(long seed, List<io.frsm.testkit.history.Operation> history) {
    Path dir = Path.of(System.getProperty("basedir", "."), "target", "linearizability");
    Path file = dir.resolve("seed-" + seed + ".jsonl");
    try {
      Files.createDirectories(dir);
      try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
        HistoryJsonWriter.write(history, out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the history of seed " + seed, e);
    }
    return file.toAbsolutePath();
  }

  private boolean allClientsFinished() {
    for (Client c : clients) {
      if (!c.finished) {
        return false;
      }
    }
    return true;
  }

  /** The history's view of how an operation ended. */
  static Output output(Outcome outcome) {
    if (outcome instanceof Outcome.Written w) {
      return new Output.Written(w.version());
    } else if (outcome instanceof Outcome.Deleted) {
      return Output.DELETED;
    } else if (outcome instanceof Outcome.ReadResult r) {
      return Output.ofRead(r.value());
    } else if (outcome instanceof Outcome.Mismatch m) {
      return new Output.CasMismatch(m.current().map(VersionedValue::of));
    } else if (outcome instanceof Outcome.Exists e) {
      return new Output.KeyExists(VersionedValue.of(e.current()));
    } else if (outcome instanceof Outcome.NotExecuted) {
      return Output.NOT_EXECUTED;
    }
    return Output.UNKNOWN;
  }

  /** One client: one operation in flight at a time, acting on what it last saw of each key. */
  private final class Client {
    final int id;
    final SimRandom random;

    /** Last observed state per key: a value, absent ({@code Optional.empty()}), or null unknown. */
    @SuppressWarnings("unchecked")
    final Optional<Versioned>[] known = new Optional[KEYS];

    long stopAtNanos;
    long seq;
    boolean finished;
    boolean preferOtherNode;

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
      Optional<Versioned> seen = known[k];
      Version version = seen != null && seen.isPresent() ? seen.get().version() : null;
      int dice = random.nextInt(100);
      if (dice < 25) {
        call(k, OperationKind.GET, new Operation.Get(keys[k]), Input.none());
      } else if (dice < 35 || (dice < 60 && version == null)) {
        byte[] value = freshValue();
        call(
            k,
            OperationKind.CREATE,
            new Operation.Create(keys[k], value),
            Input.create(Bytes.of(value)));
      } else if (dice < 60) {
        // One in five CASes expects a version that is stale or was never there.
        Version expected =
            random.chance(0.2)
                ? new Version(
                    version.epoch(), Math.max(0, version.timestamp() - 1 + 2 * (dice % 2)))
                : version;
        byte[] value = freshValue();
        call(
            k,
            OperationKind.CAS,
            new Operation.Cas(keys[k], expected, value),
            Input.cas(expected, Bytes.of(value)));
      } else if (dice < 72 && version != null) {
        call(
            k, OperationKind.DELETE, new Operation.Delete(keys[k], version), Input.delete(version));
      } else {
        call(k, OperationKind.FENCE, new Operation.Fence(keys[k]), Input.none());
      }
    }

    /** A value no other operation writes, so the checker can tell writes apart. */
    byte[] freshValue() {
      return ("c" + id + "-" + ++seq).getBytes(StandardCharsets.US_ASCII);
    }

    void learn(int k, Outcome o) {
      if (o instanceof Outcome.ReadResult r) {
        known[k] = r.value();
      } else if (o instanceof Outcome.Mismatch m) {
        known[k] = m.current();
      } else if (o instanceof Outcome.Exists e) {
        known[k] = Optional.of(e.current());
      } else if (o instanceof Outcome.Deleted) {
        known[k] = Optional.empty();
      } else if (o instanceof Outcome.Unknown) {
        known[k] = null;
      }
    }

    /**
     * Records and sends {@code op} to the key's home node (another one after a timeout, or one in
     * five times); no reply within the client timeout is an unknown outcome.
     */
    void call(int k, OperationKind kind, Operation op, Input input) {
      int node =
          preferOtherNode || random.chance(0.2)
              ? random.nextInt(sim.nodeCount())
              : Math.floorMod(k, sim.nodeCount());
      HistoryRecorder.Handle handle = recorder.invoke(id, kind, keys[k].toByteArray(), input);
      Consumer<Outcome> reply =
          o -> {
            recorder.complete(handle, output(o));
            if (o instanceof Outcome.Unknown) {
              unknowns++;
            }
            learn(k, o);
            if (o instanceof Outcome.Written w && op instanceof Operation.Cas cas) {
              known[k] = Optional.of(new Versioned(cas.value(), w.version()));
            } else if (o instanceof Outcome.Written w && op instanceof Operation.Create create) {
              known[k] = Optional.of(new Versioned(create.value(), w.version()));
            }
            sim.schedule(random.between(0, 3_000_000), this::next);
          };
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
