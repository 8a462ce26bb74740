package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * A reference checker for tiny single-key histories, independent of {@link RegisterModel}: it tries
 * every order consistent with real time, every subset of unknown outcomes, and concrete epochs for
 * every unobserved new epoch (drawn from the epochs the history mentions and the few integers just
 * above them, which covers every relevant choice).
 */
final class BruteForceChecker {
  private record State(boolean present, Bytes value, long epoch, long timestamp) {}

  private final List<Operation> ops;
  private final TreeSet<Long> epochCandidates = new TreeSet<>();

  private BruteForceChecker(List<Operation> history) {
    this.ops = new ArrayList<>();
    for (Operation op : history) {
      if (!(op.output() instanceof Output.NotExecuted)) {
        ops.add(op);
      }
    }
    List<Long> mentioned = new ArrayList<>(List.of(-1L));
    for (Operation op : ops) {
      op.input().expected().ifPresent(v -> mentioned.add(v.epoch()));
      Version out = outputVersion(op.output());
      if (out != null) {
        mentioned.add(out.epoch());
      }
    }
    for (long m : mentioned) {
      for (long e = m; e <= m + ops.size() + 1; e++) {
        if (e >= 0) {
          epochCandidates.add(e);
        }
      }
    }
  }

  static boolean isLinearizable(List<Operation> history) {
    BruteForceChecker checker = new BruteForceChecker(history);
    if (checker.ops.size() > 12) {
      throw new IllegalArgumentException("brute force is for tiny histories");
    }
    return checker.search(0, new State(false, null, -1, 0));
  }

  private boolean search(int done, State state) {
    boolean allKnownDone = true;
    for (int i = 0; i < ops.size(); i++) {
      if ((done & (1 << i)) == 0 && !(ops.get(i).output() instanceof Output.Unknown)) {
        allKnownDone = false;
      }
    }
    if (allKnownDone) {
      return true;
    }
    for (int i = 0; i < ops.size(); i++) {
      if ((done & (1 << i)) != 0 || !isMinimal(i, done)) {
        continue;
      }
      Operation op = ops.get(i);
      int nowDone = done | (1 << i);
      if (op.output() instanceof Output.Unknown && search(nowDone, state)) {
        return true; // left out
      }
      for (State after : successors(op, state)) {
        if (search(nowDone, after)) {
          return true;
        }
      }
    }
    return false;
  }

  /** No undone known operation returned before op i was called. */
  private boolean isMinimal(int i, int done) {
    for (int j = 0; j < ops.size(); j++) {
      Operation other = ops.get(j);
      if ((done & (1 << j)) == 0
          && !(other.output() instanceof Output.Unknown)
          && other.returnNanos() < ops.get(i).callNanos()) {
        return false;
      }
    }
    return true;
  }

  private List<State> successors(Operation op, State s) {
    List<State> out = new ArrayList<>();
    Output output = op.output();
    boolean unknown = output instanceof Output.Unknown;
    Version expected = op.input().expected().orElse(null);
    Bytes value = op.input().value().orElse(null);
    boolean atExpected =
        expected != null
            && s.present()
            && s.epoch() == expected.epoch()
            && s.timestamp() == expected.timestamp();
    switch (op.kind()) {
      case GET -> {
        // A get may be a mutating quorum read: the quench re-writes the value one timestamp on.
        State bumped = s.present() ? new State(true, s.value(), s.epoch(), s.timestamp() + 1) : s;
        if (unknown) {
          out.add(bumped);
        } else if (matches(s, output)) {
          out.add(s);
        } else if (s.present() && matches(bumped, output)) {
          out.add(bumped);
        }
      }
      case CREATE -> {
        if (output instanceof Output.Written w) {
          if (!s.present() && w.version().timestamp() == 0 && w.version().epoch() > s.epoch()) {
            out.add(new State(true, value, w.version().epoch(), 0));
          }
        } else if (output instanceof Output.KeyExists k) {
          if (holds(s, k.current())) {
            out.add(s);
          }
        } else if (unknown && !s.present()) {
          for (long e : epochCandidates.tailSet(s.epoch(), false)) {
            out.add(new State(true, value, e, 0));
          }
        }
      }
      case CAS, DELETE -> {
        boolean succeeded =
            unknown
                || output instanceof Output.Deleted
                || (output instanceof Output.Written w && w.version().equals(expected.next()));
        if (succeeded && atExpected) {
          out.add(
              op.kind() == OperationKind.CAS
                  ? new State(true, value, expected.epoch(), expected.timestamp() + 1)
                  : new State(false, null, expected.epoch(), 0));
        } else if (output instanceof Output.CasMismatch c && !atExpected) {
          if (c.current().isEmpty() ? !s.present() : holds(s, c.current().get())) {
            out.add(s);
          }
        }
      }
      case FENCE -> {
        if (s.present()) {
          State bumped = new State(true, s.value(), s.epoch(), s.timestamp() + 1);
          if (unknown || matches(bumped, output)) {
            out.add(bumped);
          }
        } else if (unknown || output instanceof Output.Absent) {
          for (long e : epochCandidates.tailSet(s.epoch(), false)) {
            out.add(new State(false, null, e, 0));
          }
        }
      }
      default -> throw new AssertionError(op.kind());
    }
    return out;
  }

  private static boolean matches(State s, Output output) {
    if (output instanceof Output.Absent) {
      return !s.present();
    }
    return output instanceof Output.Found f && holds(s, f.current());
  }

  private static boolean holds(State s, VersionedValue v) {
    return s.present()
        && s.value().equals(v.value())
        && s.epoch() == v.version().epoch()
        && s.timestamp() == v.version().timestamp();
  }

  private static Version outputVersion(Output output) {
    if (output instanceof Output.Found f) {
      return f.current().version();
    }
    if (output instanceof Output.Written w) {
      return w.version();
    }
    if (output instanceof Output.KeyExists k) {
      return k.current().version();
    }
    if (output instanceof Output.CasMismatch c) {
      return c.current().map(VersionedValue::version).orElse(null);
    }
    return null;
  }
}
