package io.frsm.testkit.history;

import java.util.List;

/**
 * The verdict on a history: linearizable, not (with a {@link Violation} per failing key), or
 * inconclusive (the search budget ran out on some key before a verdict).
 */
public record CheckResult(
    Verdict verdict,
    List<Violation> violations,
    List<Bytes> inconclusiveKeys,
    int keysChecked,
    long searchSteps) {

  public enum Verdict {
    LINEARIZABLE,
    NOT_LINEARIZABLE,
    INCONCLUSIVE
  }

  public CheckResult {
    violations = List.copyOf(violations);
    inconclusiveKeys = List.copyOf(inconclusiveKeys);
    Verdict expected =
        !violations.isEmpty()
            ? Verdict.NOT_LINEARIZABLE
            : inconclusiveKeys.isEmpty() ? Verdict.LINEARIZABLE : Verdict.INCONCLUSIVE;
    if (verdict != expected) {
      throw new IllegalArgumentException("verdict " + verdict + " contradicts the key results");
    }
  }

  public boolean isLinearizable() {
    return verdict == Verdict.LINEARIZABLE;
  }

  /** A human-readable summary, with every violation explained. */
  public String explain() {
    StringBuilder s = new StringBuilder();
    s.append(verdict).append(" (").append(keysChecked).append(" keys, ");
    s.append(searchSteps).append(" search steps)\n");
    for (Violation violation : violations) {
      s.append(violation.explain());
    }
    if (!inconclusiveKeys.isEmpty()) {
      s.append("search budget exhausted on keys ").append(inconclusiveKeys).append('\n');
    }
    return s.toString();
  }
}
