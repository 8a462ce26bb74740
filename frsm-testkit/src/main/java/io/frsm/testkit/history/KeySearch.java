package io.frsm.testkit.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * The linearizability search for one key: Wing &amp; Gong's depth-first search over linearization
 * points with Lowe's memoization of (set of placed operations, model state).
 *
 * <p>Call and return events sit in one list ordered by time (at equal times calls first, so
 * operations that touch are concurrent). The search walks the list from its head: at a call it
 * tries to place that operation next; at a return it has met an operation that must already be
 * placed, so it backtracks. Placed operations are unlinked (dancing links) and relinked on
 * backtrack.
 *
 * <p>Unknown outcomes have no return event: they may be placed at any point after their call (with
 * their effect) or never. Placing one "without effect" is never tried, because leaving it out is
 * the same thing. Two prunings keep the search near linear on well-behaved histories, both sound
 * because the model's versions only move forward:
 *
 * <ul>
 *   <li>An operation whose placement leaves the state unchanged (a read that fits) is placed at
 *       once; if nothing can follow, no later placement of it can help either, so the search
 *       backtracks instead of trying it later.
 *   <li>An unknown cas or delete whose expected version the key has passed is dropped for good.
 * </ul>
 *
 * <p>Not thread-safe; one instance per key and run.
 */
final class KeySearch {
  private static final int NIL = -1;
  private static final int HEAD = 0;
  private static final int RECENT_SHOWN_MAX = 8;

  private final Bytes key;
  private final CompiledOperation[] ops;
  private final List<Bytes> values;
  private final int knownCount;
  private final long stepBudget;

  // The event list: entry 0 is the head sentinel.
  private final int[] entryOp;
  private final boolean[] entryIsCall;
  private final int[] next;
  private final int[] prev;
  private final int[] callEntry;
  private final int[] returnEntry;

  /** Op indices of fences with unknown outcome, ascending (so by call time). */
  private final int[] unknownFences;

  private final BitSet placed;
  private final Set<MemoKey> seen = new HashSet<>();
  private final int[] stackOp;
  private final RegisterState[] stackState;
  private final boolean[] stackForced;
  private int depth;
  private RegisterState state = RegisterState.INITIAL;
  private int remainingKnown;
  private long steps;

  private FailurePoint deepest;

  /** The search's outcome for this key. */
  record Outcome(boolean linearizable, boolean exhaustedBudget, Violation violation, long steps) {}

  private record FailurePoint(
      int depth, RegisterState state, int blockingOp, int[] recent, int[] window) {}

  /**
   * @param history the key's operations, any order; not-executed operations are dropped here (they
   *     constrain nothing)
   */
  KeySearch(Bytes key, List<Operation> history, long stepBudget, long maxEffectDelayNanos) {
    this.key = key;
    this.stepBudget = stepBudget;
    Map<Bytes, Integer> valueIds = new HashMap<>();
    this.values = new ArrayList<>();
    List<Operation> relevant = new ArrayList<>();
    for (Operation op : history) {
      // A get with an unknown outcome stays: its quench may have bumped the version.
      if (!(op.output() instanceof Output.NotExecuted)) {
        relevant.add(op);
      }
    }
    relevant.sort(Comparator.comparingLong(Operation::callNanos)); // stable
    int n = relevant.size();
    this.ops = new CompiledOperation[n];
    int known = 0;
    for (int i = 0; i < n; i++) {
      ops[i] = new CompiledOperation(relevant.get(i), valueIds, values);
      known += ops[i].isUnknown() ? 0 : 1;
    }
    this.knownCount = known;
    this.unknownFences =
        IntStream.range(0, n)
            .filter(i -> ops[i].isUnknown() && ops[i].kind == OperationKind.FENCE)
            .toArray();
    boolean withDeadlines = maxEffectDelayNanos != LinearizabilityChecker.UNBOUNDED_DELAY;
    int entries = (withDeadlines ? 2 * n : n + known) + 1;
    this.entryOp = new int[entries];
    this.entryIsCall = new boolean[entries];
    this.next = new int[entries];
    this.prev = new int[entries];
    this.callEntry = new int[n];
    this.returnEntry = new int[n];
    buildEventList(n, entries, withDeadlines, maxEffectDelayNanos);
    this.placed = new BitSet(n);
    this.stackOp = new int[n];
    this.stackState = new RegisterState[n];
    this.stackForced = new boolean[n];
  }

  /**
   * An unknown-outcome operation has no return event, or with a bounded delay a deadline event at
   * {@code call + maxEffectDelayNanos} where it is dropped if still unplaced. Both kinds sit in
   * {@code returnEntry}.
   */
  private void buildEventList(int n, int entries, boolean withDeadlines, long maxEffectDelayNanos) {
    // Encoded events: (time, returns after calls at equal time, op index).
    long[][] events = new long[entries - 1][];
    int e = 0;
    for (int i = 0; i < n; i++) {
      Operation op = ops[i].source;
      events[e++] = new long[] {op.callNanos(), 0, i};
      if (!ops[i].isUnknown()) {
        events[e++] = new long[] {op.returnNanos(), 1, i};
      } else if (withDeadlines) {
        long deadline = op.callNanos() + maxEffectDelayNanos;
        events[e++] = new long[] {deadline < op.callNanos() ? Long.MAX_VALUE : deadline, 1, i};
      }
    }
    Arrays.sort(
        events,
        Comparator.<long[]>comparingLong(ev -> ev[0])
            .thenComparingLong(ev -> ev[1])
            .thenComparingLong(ev -> ev[2]));
    Arrays.fill(returnEntry, NIL);
    entryOp[HEAD] = NIL;
    for (int i = 0; i < events.length; i++) {
      int entry = i + 1;
      int op = (int) events[i][2];
      entryOp[entry] = op;
      entryIsCall[entry] = events[i][1] == 0;
      if (entryIsCall[entry]) {
        callEntry[op] = entry;
      } else {
        returnEntry[op] = entry;
      }
    }
    for (int entry = 0; entry < entries; entry++) {
      next[entry] = entry + 1 < entries ? entry + 1 : NIL;
      prev[entry] = entry - 1;
    }
  }

  Outcome run() {
    remainingKnown = knownCount;
    int entry = next[HEAD];
    while (remainingKnown > 0) {
      if (++steps > stepBudget) {
        return new Outcome(false, true, null, steps);
      }
      assert entry != NIL : "a known operation's return event must stop the walk";
      if (!entryIsCall[entry] && ops[entryOp[entry]].isUnknown()) {
        // Its deadline passed unplaced: it can no longer take effect, dropping it is forced.
        int op = entryOp[entry];
        placed.set(op);
        if (seen.add(memoKey(state))) {
          push(op, true);
          entry = next[HEAD];
        } else {
          placed.clear(op);
          entry = backtrack();
          if (entry == NIL) {
            return new Outcome(false, false, violation(), steps);
          }
        }
        continue;
      }
      if (!entryIsCall[entry]) {
        noteFailure(entry);
        entry = backtrack();
        if (entry == NIL) {
          return new Outcome(false, false, violation(), steps);
        }
        continue;
      }
      int op = entryOp[entry];
      CompiledOperation candidate = ops[op];
      if (isInterchangeableWithAnEarlierFence(candidate, op)) {
        entry = next[entry];
        continue;
      }
      RegisterState after;
      boolean forced; // placing it now is as good as any later placement
      if (RegisterModel.cannotTakeEffect(candidate, state)) {
        after = state;
        forced = true;
      } else {
        after = RegisterModel.apply(candidate, state);
        forced = !candidate.isUnknown() && state.equals(after);
      }
      if (after != null) {
        placed.set(op);
        if (seen.add(memoKey(after))) {
          push(op, forced);
          state = after;
          entry = next[HEAD];
          continue;
        }
        placed.clear(op);
        if (forced) {
          entry = backtrack();
          if (entry == NIL) {
            return new Outcome(false, false, violation(), steps);
          }
          continue;
        }
      }
      entry = next[entry];
    }
    return new Outcome(true, false, null, steps);
  }

  /**
   * Unknown fences all have the same effect and no return, so placing a later-called one while an
   * earlier-called one is unplaced is never needed: swapping the two gives an equivalent order.
   * Only the earliest unplaced unknown fence is tried, which keeps k of them from multiplying the
   * search by 2^k.
   */
  private boolean isInterchangeableWithAnEarlierFence(CompiledOperation candidate, int op) {
    if (!candidate.isUnknown() || candidate.kind != OperationKind.FENCE) {
      return false;
    }
    for (int fence : unknownFences) {
      if (!placed.get(fence)) {
        return fence != op;
      }
    }
    throw new AssertionError("the candidate fence is unplaced");
  }

  private void push(int op, boolean forced) {
    stackOp[depth] = op;
    stackState[depth] = state;
    stackForced[depth] = forced;
    depth++;
    lift(op);
    if (!ops[op].isUnknown()) {
      remainingKnown--;
    }
  }

  /** Undoes placements up to the last one that has an alternative; NIL when none is left. */
  private int backtrack() {
    while (depth > 0) {
      depth--;
      int op = stackOp[depth];
      state = stackState[depth];
      stackState[depth] = null;
      unlift(op);
      placed.clear(op);
      if (!ops[op].isUnknown()) {
        remainingKnown++;
      }
      if (!stackForced[depth]) {
        return next[callEntry[op]];
      }
    }
    return NIL;
  }

  private void lift(int op) {
    unlink(callEntry[op]);
    if (returnEntry[op] != NIL) {
      unlink(returnEntry[op]);
    }
  }

  /** Exactly reverses {@link #lift}: relinks in the opposite order. */
  private void unlift(int op) {
    if (returnEntry[op] != NIL) {
      relink(returnEntry[op]);
    }
    relink(callEntry[op]);
  }

  private void unlink(int entry) {
    next[prev[entry]] = next[entry];
    if (next[entry] != NIL) {
      prev[next[entry]] = prev[entry];
    }
  }

  private void relink(int entry) {
    next[prev[entry]] = entry;
    if (next[entry] != NIL) {
      prev[next[entry]] = entry;
    }
  }

  /**
   * The placed set in a compact canonical form: everything below {@code hi} is placed except the
   * few operations listed (those still in flight at this point), nothing from {@code hi} on.
   */
  private MemoKey memoKey(RegisterState after) {
    int hi = placed.length();
    int missingCount = hi - placed.cardinality();
    int[] missing = new int[missingCount];
    int m = 0;
    for (int i = placed.nextClearBit(0); i < hi; i = placed.nextClearBit(i + 1)) {
      missing[m++] = i;
    }
    return new MemoKey(hi, missing, after);
  }

  private static final class MemoKey {
    private final int hi;
    private final int[] missing;
    private final RegisterState state;
    private final int hash;

    MemoKey(int hi, int[] missing, RegisterState state) {
      this.hi = hi;
      this.missing = missing;
      this.state = state;
      this.hash = (31 * hi + Arrays.hashCode(missing)) * 31 + state.hashCode();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof MemoKey k
          && hi == k.hi
          && Arrays.equals(missing, k.missing)
          && state.equals(k.state);
    }

    @Override
    public int hashCode() {
      return hash;
    }
  }

  /** Remembers the deepest point at which an operation's return blocked the search. */
  private void noteFailure(int returnEntryBlocking) {
    if (deepest != null && deepest.depth() >= depth) {
      return;
    }
    List<Integer> recent = new ArrayList<>();
    for (int d = depth - 1; d >= 0 && recent.size() < RECENT_SHOWN_MAX; d--) {
      boolean dropped = ops[stackOp[d]].isUnknown() && stackForced[d];
      if (!dropped) {
        recent.add(0, stackOp[d]);
      }
    }
    List<Integer> window = new ArrayList<>();
    for (int e = next[HEAD]; e != returnEntryBlocking; e = next[e]) {
      if (entryIsCall[e]) {
        window.add(entryOp[e]);
      }
    }
    deepest =
        new FailurePoint(
            depth,
            state,
            entryOp[returnEntryBlocking],
            recent.stream().mapToInt(Integer::intValue).toArray(),
            window.stream().mapToInt(Integer::intValue).toArray());
  }

  private Violation violation() {
    FailurePoint point = deepest;
    assert point != null : "the search fails only after some return blocked it";
    List<Operation> recent = new ArrayList<>();
    for (int op : point.recent()) {
      recent.add(ops[op].source);
    }
    List<Violation.Attempt> window = new ArrayList<>();
    for (int op : point.window()) {
      CompiledOperation candidate = ops[op];
      String reason;
      if (RegisterModel.cannotTakeEffect(candidate, point.state())) {
        reason = "can no longer take effect (the key moved past its expected version)";
      } else if (RegisterModel.apply(candidate, point.state()) != null) {
        reason = "fits here, but no order of the remaining operations works after it";
      } else if (candidate.isUnknown()) {
        reason = "outcome unknown: could only be left out here";
      } else {
        reason = RegisterModel.requirement(candidate, values);
      }
      window.add(new Violation.Attempt(candidate.source, reason));
    }
    return new Violation(
        key,
        point.depth(),
        ops.length,
        recent,
        point.state().describe(values),
        ops[point.blockingOp()].source,
        window);
  }
}
