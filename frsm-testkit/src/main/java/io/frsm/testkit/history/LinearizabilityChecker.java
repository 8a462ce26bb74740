package io.frsm.testkit.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks a client history for per-key linearizability against the model of docs/DESIGN.md
 * "Operations" (see {@link RegisterState} for how unobserved epochs are handled).
 *
 * <p>Keys are independent registers, so the history is split by key and each key is searched on its
 * own (linearizability is compositional). Every key is assumed to start never created. Operations
 * whose intervals touch (one's return time equals the other's call time) count as concurrent.
 * Session ordering and the bounded delay are stronger guarantees than linearizability and are not
 * checked here: an unknown outcome may take effect arbitrarily late, unless a maximum effect delay
 * is given.
 *
 * <p>The search is exponential in the worst case; {@code stepBudgetPerKey} bounds it, and a key
 * that exhausts it makes the verdict {@link CheckResult.Verdict#INCONCLUSIVE} rather than a hang.
 * Thread-safe (it holds no state between calls).
 */
public final class LinearizabilityChecker {
  /**
   * 10,000 operations at five clients with 4% unknown outcomes take about 20,000 steps under a
   * bounded effect delay and about 3 million without one. The memo grows by at most one entry per
   * step (roughly 100 bytes), so the budget also caps memory (about 1 GB at this default).
   */
  public static final long DEFAULT_STEP_BUDGET_PER_KEY = 10_000_000L;

  /** No bound on how late an unknown outcome may take effect. */
  public static final long UNBOUNDED_DELAY = Long.MAX_VALUE;

  private final long stepBudgetPerKey;
  private final long maxEffectDelayNanos;

  /** The default budget, unknown outcomes unbounded. */
  public LinearizabilityChecker() {
    this(DEFAULT_STEP_BUDGET_PER_KEY, UNBOUNDED_DELAY);
  }

  /**
   * Checks {@code history} assuming first that every unknown outcome takes effect within {@code
   * boundNanos} of its call (fast: the search stays near linear), and, only if that rejects it,
   * again without the bound. The bound is a heuristic, not the protocol's contract: an accept that
   * reached a minority can be adopted by a later prepare and take effect arbitrarily late, so a
   * bounded rejection alone proves nothing (docs/PROTOCOL.md, "The linearizability check").
   */
  public static CheckResult checkBoundedFirst(List<Operation> history, long boundNanos) {
    CheckResult bounded =
        new LinearizabilityChecker(DEFAULT_STEP_BUDGET_PER_KEY, boundNanos).check(history);
    return bounded.isLinearizable() ? bounded : new LinearizabilityChecker().check(history);
  }

  /**
   * @param stepBudgetPerKey the most placements the search tries on one key before giving up
   * @param maxEffectDelayNanos how long after its call an unknown-outcome operation can still take
   *     effect, or {@link #UNBOUNDED_DELAY}. The store's bounded delay gives {@code T + 2ε}
   *     (docs/DESIGN.md "Operations"), but only if the recorder's clock is the one that stamped the
   *     operation's invocation time (embedded clients, the simulator's virtual clock); otherwise
   *     add the skew between the two clocks. A bound keeps refuting a bad history with many unknown
   *     outcomes near linear instead of exponential.
   */
  public LinearizabilityChecker(long stepBudgetPerKey, long maxEffectDelayNanos) {
    if (stepBudgetPerKey <= 0) {
      throw new IllegalArgumentException("stepBudgetPerKey must be > 0, was " + stepBudgetPerKey);
    }
    if (maxEffectDelayNanos < 0) {
      throw new IllegalArgumentException(
          "maxEffectDelayNanos must be >= 0, was " + maxEffectDelayNanos);
    }
    this.stepBudgetPerKey = stepBudgetPerKey;
    this.maxEffectDelayNanos = maxEffectDelayNanos;
  }

  public CheckResult check(List<Operation> history) {
    Map<Bytes, List<Operation>> byKey = new LinkedHashMap<>();
    for (Operation op : history) {
      byKey.computeIfAbsent(op.key(), k -> new ArrayList<>()).add(op);
    }
    List<Violation> violations = new ArrayList<>();
    List<Bytes> inconclusive = new ArrayList<>();
    long steps = 0;
    for (Map.Entry<Bytes, List<Operation>> key : byKey.entrySet()) {
      KeySearch.Outcome outcome =
          new KeySearch(key.getKey(), key.getValue(), stepBudgetPerKey, maxEffectDelayNanos).run();
      steps += outcome.steps();
      if (outcome.exhaustedBudget()) {
        inconclusive.add(key.getKey());
      } else if (!outcome.linearizable()) {
        violations.add(outcome.violation());
      }
    }
    CheckResult.Verdict verdict =
        !violations.isEmpty()
            ? CheckResult.Verdict.NOT_LINEARIZABLE
            : inconclusive.isEmpty()
                ? CheckResult.Verdict.LINEARIZABLE
                : CheckResult.Verdict.INCONCLUSIVE;
    return new CheckResult(verdict, violations, inconclusive, byKey.size(), steps);
  }
}
