package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.CoreStats;
import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.ReadMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The core's counters ({@code NodeCore.stats()}) on scripted runs of single operations (n = 3, no
 * faults, the Table 2 setting): each operation moves exactly the counters that describe it, on the
 * node that coordinated it; a served get's reply names the read mode its counter counted.
 */
class CoreStatsTest {
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));

  private Simulation sim;

  /** Every reply the cores emitted, in order. */
  private final List<Effect.Reply> replies = new ArrayList<>();

  @BeforeEach
  void setUp() {
    sim = new Simulation(1, FaultMix.exact(3, 1_000, 0), Simulation.simConfig(3), 1_000_000);
    sim.setEffectObserver(
        (node, effect) -> {
          if (effect instanceof Effect.Reply r) {
            replies.add(r);
          }
        });
  }

  /** The read mode the last reply carried (null: not a served get). */
  private ReadMode lastReadMode() {
    return replies.get(replies.size() - 1).readMode();
  }

  private Outcome run(int node, Operation op) {
    Outcome[] outcome = {null};
    sim.submit(node, op, o -> outcome[0] = o);
    sim.runUntil(() -> outcome[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    sim.runUntilQuiet(sim.nowNanos() + 10_000_000_000L);
    return outcome[0];
  }

  /** What changed on {@code node} while {@code op} ran there. */
  private CoreStats delta(int node, Operation op) {
    CoreStats before = sim.stats(node);
    run(node, op);
    return minus(sim.stats(node), before);
  }

  private Version create() {
    return assertInstanceOf(Outcome.Written.class, run(0, new Operation.Create(KEY, bytes("v0"))))
        .version();
  }

  @Test
  void create_countsOneCreateOnePrepareQuorumOneAcceptQuorum() {
    CoreStats d = delta(0, new Operation.Create(KEY, bytes("v0")));
    assertEquals(stats(s -> s.creates = 1, s -> s.prepares = 2, s -> s.accepts = 2), d);
    assertNull(lastReadMode(), "only a served get carries a read mode");
  }

  @Test
  void warmCas_countsWarmOneColdZero_andSendsNoPrepare() {
    Version v0 = create(); // leaves node 0 warm on the key
    CoreStats d = delta(0, new Operation.Cas(KEY, v0, bytes("v1")));
    assertEquals(stats(s -> s.cases = 1, s -> s.warm = 1, s -> s.accepts = 2), d);
    assertEquals(0.0, d.multiPhaseFraction());
  }

  @Test
  void coldCas_countsColdOneWarmZero() {
    Version v0 = create();
    run(1, new Operation.Cas(KEY, v0, bytes("v1"))); // node 1 takes the key over: node 0 is cold
    CoreStats d = delta(0, new Operation.Cas(KEY, v0.next(), bytes("v2")));
    assertEquals(
        stats(s -> s.cases = 1, s -> s.cold = 1, s -> s.prepares = 2, s -> s.accepts = 2), d);
    assertEquals(1.0, d.multiPhaseFraction());
  }

  @Test
  void casWithAStaleVersion_countsAMismatch() {
    Version v0 = create();
    run(0, new Operation.Cas(KEY, v0, bytes("v1")));
    CoreStats d = delta(0, new Operation.Cas(KEY, v0, bytes("stale")));
    // Not warm (the expected version is not the chosen one): a prepare, then ⊥-free definite
    // answer.
    assertEquals(
        stats(s -> s.cases = 1, s -> s.cold = 1, s -> s.prepares = 2, s -> s.mismatches = 1), d);
  }

  @Test
  void createOfAPresentKey_countsKeyExists() {
    create();
    CoreStats d = delta(0, new Operation.Create(KEY, bytes("again")));
    assertEquals(stats(s -> s.creates = 1, s -> s.prepares = 2, s -> s.exists = 1), d);
  }

  @Test
  void quorumRead_countsAQuorumReadAndNoRounds() {
    create();
    CoreStats d = delta(0, new Operation.Get(KEY));
    assertEquals(stats(s -> s.gets = 1, s -> s.quorumReads = 1), d);
    assertEquals(ReadMode.QUORUM, lastReadMode());
  }

  @Test
  void readOfALeftover_countsAMutatingQuorumRead_andTheLostCasAnUnknownOutcome() {
    Version v0 = create();
    // Node 1's CAS reaches only its own acceptor: its outcome is unknown, the leftover not chosen.
    sim.setFilter((from, to, m) -> from == 1 && to != 1 && m instanceof Message.Accept);
    CoreStats lost = delta(1, new Operation.Cas(KEY, v0, bytes("v1")));
    sim.setFilter((from, to, m) -> false);
    assertEquals(1, lost.unknownOutcomes());
    assertEquals(1, lost.casCold());

    CoreStats d = delta(0, new Operation.Get(KEY));
    assertEquals(
        stats(s -> s.gets = 1, s -> s.mutatingReads = 1, s -> s.prepares = 2, s -> s.accepts = 2),
        d);
    assertEquals(ReadMode.MUTATING_QUORUM, lastReadMode());
  }

  @Test
  void fenceAndDelete_areCountedByKind() {
    Version v0 = create();
    CoreStats fence = delta(0, new Operation.Fence(KEY));
    assertEquals(1, fence.fences());
    assertEquals(0, fence.cases() + fence.casWarm() + fence.casCold());
    CoreStats delete = delta(0, new Operation.Delete(KEY, v0.next()));
    assertEquals(1, delete.deletes());
    assertEquals(0, delete.cases() + delete.casWarm() + delete.casCold());
  }

  @Test
  void plus_sumsFieldWise() {
    CoreStats a = stats(s -> s.warm = 3, s -> s.cold = 1);
    CoreStats b = stats(s -> s.warm = 1, s -> s.quorumReads = 2);
    CoreStats sum = a.plus(b);
    assertEquals(4, sum.casWarm());
    assertEquals(1, sum.casCold());
    assertEquals(2, sum.readsQuorum());
    assertEquals(0.2, sum.multiPhaseFraction(), 1e-9);
  }

  /** Mutable stand-in for building an expected {@link CoreStats} with only some fields set. */
  private static final class Expected {
    long gets, creates, cases, deletes, fences, warm, cold, leaderReads, quorumReads;
    long mutatingReads, mismatches, exists, unknown, notExecuted, prepares, accepts;
    long leaderMismatches, staleRingRefused, staleRingReplies;
    long settledByScan, settledByPull, pullNanos, skippedByScan;
    long settleRetries, settlesPreempted;
  }

  @SafeVarargs
  private static CoreStats stats(java.util.function.Consumer<Expected>... setters) {
    Expected e = new Expected();
    for (var s : setters) {
      s.accept(e);
    }
    return new CoreStats(
        e.gets,
        e.creates,
        e.cases,
        e.deletes,
        e.fences,
        e.warm,
        e.cold,
        e.leaderReads,
        e.quorumReads,
        e.mutatingReads,
        e.mismatches,
        e.exists,
        e.unknown,
        e.notExecuted,
        e.prepares,
        e.accepts,
        e.leaderMismatches,
        e.staleRingRefused,
        e.staleRingReplies,
        e.settledByScan,
        e.settledByPull,
        e.pullNanos,
        e.skippedByScan,
        e.settleRetries,
        e.settlesPreempted);
  }

  private static CoreStats minus(CoreStats a, CoreStats b) {
    return a.minus(b);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
