package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Leases backed by the holder's session (docs/PROTOCOL.md "Leases backed by the session"): the
 * lease workload with a service that expires sessions by its own (fast) clock, latch semantics (a
 * range moves only when its holder's session expires or the holder leaves), restarts of the
 * service, and agents that feed their cores renewals credited by the session, {@code min(now, s +
 * S·(1−ρ)/(1+ρ))}. Every read is checked against what was acknowledged before it; the counters
 * against the acknowledged increments.
 *
 * <p>{@code -Dfrsm.sim.sessionLeaseSeeds=N} runs N seeds; {@code -Dfrsm.sim.seed=S} replays one;
 * {@code -Dfrsm.sim.sessionMistake=FEED_AFTER_LEAVE} (or {@code PAST_THE_BOUND}) runs them with
 * that mistake and reports how many seeds catch it instead of failing.
 */
class SessionBackedLeaseSimulationTest {
  static final int CI_SEEDS = 300;
  static final int MISTAKE_SEEDS = 2_000;

  @Test
  void sessionBackedLeases_everySeed_noStaleRead_noIncrementLostOrDoubled() {
    SeedRange seeds = SeedRange.fromSystemProperties("frsm.sim.sessionLeaseSeeds", CI_SEEDS);
    SessionBackedLeases.Mistake mistake =
        SessionBackedLeases.Mistake.valueOf(
            System.getProperty("frsm.sim.sessionMistake", SessionBackedLeases.Mistake.NONE.name()));
    long started = System.nanoTime();
    List<String> failures = new ArrayList<>();
    long readsChecked = 0;
    long leaderOnly = 0;
    long increments = 0;
    long credited = 0;
    long bridged = 0;
    long restarts = 0;
    for (long seed = seeds.first(); seed < seeds.first() + seeds.count(); seed++) {
      try {
        CounterWorkload.SessionRun run =
            CounterWorkload.runWithSessionBackedLeases(seed, FaultMix.forSeed(seed), mistake);
        readsChecked += run.result().readsChecked();
        leaderOnly += run.result().leaderOnlyReads();
        increments += run.result().increments();
        credited += run.creditedRenewals();
        bridged += run.bridged();
        restarts += run.restarts();
      } catch (AssertionError e) {
        failures.add(e.getMessage());
      }
    }
    System.out.printf(
        "session-backed leases (mistake %s): %d seeds in %d ms: %d increments, %d reads checked, %d"
            + " leader-only, %d service restarts, %d credited renewals (%d past half the credit),"
            + " %d failures%n",
        mistake,
        seeds.count(),
        (System.nanoTime() - started) / 1_000_000,
        increments,
        readsChecked,
        leaderOnly,
        restarts,
        credited,
        bridged,
        failures.size());
    failures.stream().limit(20).forEach(System.out::println);
    if (mistake != SessionBackedLeases.Mistake.NONE) {
      return; // a rate, not a verdict
    }
    assertEquals(List.of(), failures.stream().limit(5).toList());
    if (!seeds.replay()) {
      assertTrue(restarts > seeds.count(), "the service restarts: " + restarts);
      assertTrue(bridged > seeds.count(), "sessions carry leases over renewal gaps: " + bridged);
      assertTrue(leaderOnly > readsChecked / 10, "leader-only reads happen: " + leaderOnly);
    }
  }

  @Test
  void sameSeedTwice_sameTrace() {
    for (long seed : new long[] {3, 41}) {
      assertEquals(
          CounterWorkload.runWithSessionBackedLeases(
              seed, FaultMix.forSeed(seed), SessionBackedLeases.Mistake.NONE),
          CounterWorkload.runWithSessionBackedLeases(
              seed, FaultMix.forSeed(seed), SessionBackedLeases.Mistake.NONE));
    }
  }

  @ParameterizedTest
  @EnumSource(
      value = SessionBackedLeases.Mistake.class,
      names = {"FEED_AFTER_LEAVE", "PAST_THE_BOUND"})
  void aWrongCredit_isCaught(SessionBackedLeases.Mistake mistake) {
    for (long seed = 1; seed <= MISTAKE_SEEDS; seed++) {
      try {
        CounterWorkload.runWithSessionBackedLeases(seed, FaultMix.forSeed(seed), mistake);
      } catch (AssertionError caught) {
        System.out.println(mistake + " caught at seed " + seed + ": " + caught.getMessage());
        assertTrue(caught.getMessage().contains("seed " + seed), "names its seed");
        return;
      }
    }
    throw new AssertionError(mistake + " not caught in " + MISTAKE_SEEDS + " seeds");
  }
}
