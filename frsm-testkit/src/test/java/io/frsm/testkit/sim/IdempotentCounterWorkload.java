package io.frsm.testkit.sim;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.IdempotencyHint;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;

/**
 * Idempotent resends under faults (docs/PROTOCOL.md "Idempotent resends"): clients CAS-increment a
 * few counters, each increment with a fresh token; an increment whose outcome is unknown (a
 * timeout, a lost reply, a leader change) is resent with the same token and the resend flag, up to
 * {@link #MAX_RESENDS} times, and only then resolved with a fence as in {@link CounterWorkload}.
 *
 * <p>Checked, besides the simulator's safety checker after every step:
 *
 * <ul>
 *   <li>every "written at v" answer names {@code expected.next()}, and at the end every counter
 *       equals the number of increments answered written (or found applied by a fence): a false
 *       "written" shows as a lost increment, a token applied twice as a doubled one;
 *   <li>a resend answered "mismatch" (definitely not applied) did not take effect: the current
 *       value it reports does not carry the increment's tag. Counter values copy every client's
 *       last tag forward, so an increment that took effect stays visible in every later value.
 * </ul>
 *
 * With leases on, the range holders answer from their local cells where they can (the leader-only
 * path of the rules), and the lease nemesis moves the ranges; without, every answer comes from a
 * quorum.
 */
final class IdempotentCounterWorkload {
  static final int MAX_RESENDS = 3;
  private static final int CLIENTS = 4;
  private static final int KEYS = 2;
  private static final long WORKLOAD_NANOS = 500_000_000L;
  private static final long TICK_NANOS = 2_000_000L;

  /** What a run did. */
  record Result(
      long seed,
      long steps,
      long increments,
      long resends,
      long resendsWritten,
      long resendsMismatch,
      long resendsSuperseded,
      long resolvedByFence) {}

  private final Simulation sim;
  private final Key[] keys = new Key[KEYS];
  private final long[] tookEffect = new long[KEYS];
  private final Client[] clients = new Client[CLIENTS];
  private final long clientTimeoutNanos;
  private final LeaseService leaseService;
  private final LeaseNemesis leaseNemesis;
  private long increments;
  private long resends;
  private long resendsWritten;
  private long resendsMismatch;
  private long resendsSuperseded;
  private long resolvedByFence;

  private IdempotentCounterWorkload(long seed, boolean leases) {
    FaultMix mix = FaultMix.forSeed(seed);
    CoreConfig.Builder builder =
        (leases ? Simulation.simConfig(mix.nodes()) : Simulation.simConfig(seed, mix)).toBuilder();
    if (leases) {
      CoreConfig plain = builder.build();
      builder
          .leases(CounterWorkload.simLeases())
          .placement(Placement.splitAt(List.of(0L), plain.placement().replicas(0)));
    }
    CoreConfig config = builder.build();
    this.sim = new Simulation(seed, mix, config, TICK_NANOS, SimStorage.MEMORY, 1);
    if (leases) {
      SimRandom leaseRandom = new SimRandom(seed ^ 0x1DE3L);
      sim.watchQuorums(CounterWorkload.simLeases().lease().dividedBy(2));
      this.leaseService = new LeaseService(sim, leaseRandom.fork());
      this.leaseNemesis = new LeaseNemesis(sim, leaseService, leaseRandom.fork(), 4, 4, 2, 4);
    } else {
      this.leaseService = null;
      this.leaseNemesis = null;
    }
    // Short of the core's bounded delay, so that clients often give up while a round still runs
    // and resend into it (the resend queues behind it, or reaches another node).
    this.clientTimeoutNanos = config.roundTimeout().toNanos() * 2;
    for (int k = 0; k < KEYS; k++) {
      keys[k] = Key.of(("idem-" + k).getBytes(StandardCharsets.US_ASCII));
    }
    SimRandom clientRandom = new SimRandom(seed ^ 0x1DE3C11EL);
    for (int c = 0; c < CLIENTS; c++) {
      clients[c] = new Client(c, clientRandom.fork());
    }
  }

  /** Even seeds with range leases (leader-only answers), odd seeds with quorum answers only. */
  static Result run(long seed) {
    return new IdempotentCounterWorkload(seed, Math.floorMod(seed, 2) == 0).execute();
  }

  private int leaderOf(int k) {
    int range = sim.coreConfig().placement().rangeOf(keys[k]);
    int holder = leaseService == null ? -1 : leaseService.holder(range);
    return holder >= 0 ? holder : sim.notStopped(Math.floorMod(k, sim.nodeCount()));
  }

  private Result execute() {
    if (leaseService != null) {
      leaseService.start();
    }
    for (int k = 0; k < KEYS; k++) {
      int key = k;
      boolean[] created = {false};
      Runnable[] attempt = new Runnable[1];
      attempt[0] =
          () ->
              sim.submit(
                  leaderOf(key),
                  new Operation.Create(keys[key], CounterValue.zero().encode()),
                  o -> {
                    if (o instanceof Outcome.Written) {
                      created[0] = true;
                    } else if (o instanceof Outcome.NotExecuted) {
                      sim.schedule(5_000_000, attempt[0]); // no holder with a durable term yet
                    } else {
                      throw new AssertionError("setup create of key " + key + " failed: " + o);
                    }
                  });
      attempt[0].run();
      sim.runUntil(() -> created[0], 5_000_000_000L, "setup of key " + key);
    }
    sim.startFaults();
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
    if (leaseNemesis != null) {
      leaseNemesis.stop();
    }
    sim.runUntil(this::allClientsFinished, end + 60_000_000_000L, "clients finishing");
    verifyCounters();
    return new Result(
        sim.seed(),
        sim.steps(),
        increments,
        resends,
        resendsWritten,
        resendsMismatch,
        resendsSuperseded,
        resolvedByFence);
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
      Outcome[] result = {null};
      Runnable[] read = new Runnable[1];
      read[0] =
          () ->
              sim.submit(
                  leaderOf(key),
                  new Operation.Get(keys[key]),
                  o -> {
                    if (o instanceof Outcome.NotExecuted) {
                      sim.schedule(5_000_000, read[0]); // the holder is changing
                    } else {
                      result[0] = o;
                    }
                  });
      read[0].run();
      sim.runUntil(() -> result[0] != null, sim.nowNanos() + 10_000_000_000L, "final read");
      if (!(result[0] instanceof Outcome.ReadResult r) || r.value().isEmpty()) {
        throw new AssertionError(sim.failureMessage("final read of key " + key + ": " + result[0]));
      }
      long count = CounterValue.decode(r.value().get().value()).count();
      if (count != tookEffect[key]) {
        throw new AssertionError(
            sim.failureMessage(
                "counter "
                    + key
                    + " is "
                    + count
                    + " but "
                    + tookEffect[key]
                    + " increments were answered written or found applied ("
                    + (count > tookEffect[key] ? "applied twice or a false mismatch" : "lost")
                    + ")"));
      }
    }
  }

  /** One client: one increment in flight, resent with its token until the outcome is known. */
  private final class Client {
    final int id;
    final SimRandom random;
    final Versioned[] known = new Versioned[KEYS];
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
      Versioned v = known[k];
      if (v == null) {
        call(
            k,
            new Operation.Get(keys[k]),
            o -> {
              if (o instanceof Outcome.ReadResult r) {
                known[k] = r.value().orElse(null);
              }
              idle();
            });
        return;
      }
      long s = ++seq;
      IdempotencyToken token =
          new IdempotencyToken(random.nextLong(Long.MAX_VALUE), random.nextLong(Long.MAX_VALUE));
      increments++;
      increment(k, v, CounterValue.decode(v.value()).increment(id, s), s, token, 0);
    }

    void idle() {
      sim.schedule(random.between(0, 3_000_000), this::next);
    }

    void increment(int k, Versioned v, CounterValue next, long s, IdempotencyToken token, int n) {
      Version expected = v.version();
      call(
          k,
          new Operation.Cas(keys[k], expected, next.encode(), new IdempotencyHint(token, n > 0)),
          o -> {
            if (o instanceof Outcome.Written w) {
              if (!w.version().equals(expected.next())) {
                throw new AssertionError(
                    sim.failureMessage(
                        "client "
                            + id
                            + " seq "
                            + s
                            + " written at "
                            + w.version()
                            + ", expected "
                            + expected.next()));
              }
              tookEffect[k]++;
              if (n > 0) {
                resendsWritten++;
              }
              known[k] = new Versioned(next.encode(), w.version());
              idle();
            } else if (o instanceof Outcome.Mismatch m) {
              if (n > 0) {
                resendsMismatch++;
                m.current().ifPresent(c -> checkNotApplied(c, s));
              }
              known[k] = m.current().orElse(null);
              idle();
            } else if (o instanceof Outcome.NotExecuted && n == 0) {
              idle(); // the first attempt was never proposed: nothing to resolve
            } else if (o instanceof Outcome.Unknown u && u.reason().startsWith("superseded")) {
              resendsSuperseded++;
              resolveByFence(k, s, expected, next);
            } else if (o instanceof Outcome.Unknown || o instanceof Outcome.NotExecuted) {
              // Unknown, or a resend that was not executed: the earlier attempt is still unknown.
              if (n < MAX_RESENDS) {
                resends++;
                sim.schedule(
                    random.between(0, 5_000_000), () -> increment(k, v, next, s, token, n + 1));
              } else {
                resolveByFence(k, s, null, null);
              }
            } else {
              throw new AssertionError("unexpected CAS outcome " + o);
            }
          });
    }

    /** A resend answered "not applied": the increment's tag must be absent from {@code current}. */
    void checkNotApplied(Versioned current, long s) {
      long last = CounterValue.decode(current.value()).lastSeq(id);
      if (last >= s) {
        throw new AssertionError(
            sim.failureMessage(
                "client "
                    + id
                    + " seq "
                    + s
                    + ": a resend was answered mismatch (not applied) but "
                    + current.version()
                    + " carries its tag "
                    + last));
      }
    }

    /**
     * Resolves increment {@code s} with a fence. After a "superseded" answer ({@code expected}
     * non-null) the fence must not find the increment's own value as the newest at {@code
     * expected.next()}: that answer is given only once a value past {@code expected} without the
     * token is chosen, so the increment's value can never again be the newest there — unless the
     * resend failed to recognise its own value (a token lost on the way).
     */
    void resolveByFence(int k, long s, Version expected, CounterValue own) {
      call(
          k,
          new Operation.Fence(keys[k]),
          o -> {
            if (o instanceof Outcome.ReadResult r && r.value().isPresent()) {
              Versioned present = r.value().get();
              known[k] = present;
              if (expected != null
                  && present.version().equals(expected.next().next())
                  && java.util.Arrays.equals(present.value(), own.encode())) {
                throw new AssertionError(
                    sim.failureMessage(
                        "client "
                            + id
                            + " seq "
                            + s
                            + ": a resend was answered superseded, yet its own value is the"
                            + " newest at "
                            + expected.next()));
              }
              long last = CounterValue.decode(present.value()).lastSeq(id);
              if (last > s) {
                throw new AssertionError("client " + id + " tag " + last + " > " + s);
              }
              if (last == s) {
                tookEffect[k]++;
              }
              resolvedByFence++;
              idle();
            } else {
              sim.schedule(5_000_000, () -> resolveByFence(k, s, expected, own));
            }
          });
    }

    /**
     * Sends {@code op} to the key's leader as this client knows it (another one after a timeout).
     */
    void call(int k, Operation op, Consumer<Outcome> then) {
      int node =
          preferOtherNode || op instanceof Operation.Fence
              ? random.nextInt(sim.nodeCount())
              : leaderOf(k);
      sim.call(
          sim.notStopped(node),
          op,
          clientTimeoutNanos,
          (o, timedOut) -> {
            preferOtherNode = timedOut;
            then.accept(o);
          });
    }
  }
}
