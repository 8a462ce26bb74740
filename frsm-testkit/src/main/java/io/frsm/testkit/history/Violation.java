package io.frsm.testkit.history;

import java.util.List;
import java.util.Objects;

/**
 * Why one key's history is not linearizable: the deepest point the search reached. After the
 * operations in {@code linearizedBefore} (the last ones of the longest order found, oldest first)
 * the key was in {@code stateBefore}; {@code blocking} must take effect before it returns, but no
 * operation of the {@code window} (every operation called and not yet placed at that point) fits
 * next in a way that lets the rest follow.
 */
public record Violation(
    Bytes key,
    int linearizedCount,
    int operationCount,
    List<Operation> linearizedBefore,
    String stateBefore,
    Operation blocking,
    List<Attempt> window) {

  /** One operation of the window and why it could not be placed next. */
  public record Attempt(Operation operation, String reason) {}

  public Violation {
    Objects.requireNonNull(key, "key");
    linearizedBefore = List.copyOf(linearizedBefore);
    window = List.copyOf(window);
  }

  /** A multi-line explanation for a test failure or a log. */
  public String explain() {
    StringBuilder s = new StringBuilder();
    s.append("key ")
        .append(key)
        .append(" is not linearizable: the longest valid order found places ");
    s.append(linearizedCount).append(" of its ").append(operationCount).append(" operations");
    if (!linearizedBefore.isEmpty()) {
      s.append(", ending with:\n");
      for (Operation op : linearizedBefore) {
        s.append("    ").append(op).append('\n');
      }
    } else {
      s.append(".\n");
    }
    s.append("  Then the key is ").append(stateBefore).append(", and\n    ").append(blocking);
    s.append("\n  must take effect before it returns, but none of these fits next:\n");
    for (Attempt attempt : window) {
      s.append("    ").append(attempt.operation()).append("\n      ").append(attempt.reason());
      s.append('\n');
    }
    return s.toString();
  }
}
