package io.frsm.server.multiprocess;

import io.frsm.testkit.history.Bytes;
import io.frsm.testkit.history.Operation;
import io.frsm.testkit.history.Output;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fault's unavailability window, from a recorded history: per key, the longest time without an
 * answer that the fault's span overlaps, counted from the last answer before the fault began. An
 * answer is any operation on the key that came back with a result (found, absent, written, deleted,
 * key exists, CAS mismatch): a client learned the key's state. Unknown outcomes and "not executed"
 * are no answer.
 */
final class Unavailability {
  /** The longest gap on one key. */
  record Gap(Bytes key, long nanos) {
    long millis() {
      return nanos / 1_000_000;
    }
  }

  private Unavailability() {}

  /**
   * The longest gap, over {@code keys}, that overlaps [{@code fromNanos}, {@code toNanos}] (the
   * recorder's clock). A key with no answer at all in the span counts up to {@code toNanos}.
   */
  static Gap longest(List<Operation> history, List<Bytes> keys, long fromNanos, long toNanos) {
    Map<Bytes, List<Long>> answers = new LinkedHashMap<>();
    for (Bytes k : keys) {
      answers.put(k, new ArrayList<>());
    }
    for (Operation op : history) {
      List<Long> times = answers.get(op.key());
      if (times != null && answered(op.output())) {
        times.add(op.returnNanos());
      }
    }
    Gap worst = new Gap(keys.get(0), 0);
    for (Map.Entry<Bytes, List<Long>> e : answers.entrySet()) {
      List<Long> times = e.getValue();
      times.sort(null);
      long previous = fromNanos;
      for (long t : times) {
        if (t <= fromNanos) {
          previous = t; // the last answer before the fault
        }
      }
      long longest = 0;
      for (long t : times) {
        if (t > fromNanos && t <= toNanos) {
          longest = Math.max(longest, t - previous);
          previous = t;
        }
      }
      longest = Math.max(longest, toNanos - previous); // none since: counts to the end
      if (longest > worst.nanos()) {
        worst = new Gap(e.getKey(), longest);
      }
    }
    return worst;
  }

  static boolean answered(Output output) {
    return !(output instanceof Output.Unknown) && !(output instanceof Output.NotExecuted);
  }
}
