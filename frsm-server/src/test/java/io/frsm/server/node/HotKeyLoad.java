package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A hot counter per chosen range under thin clients: per key one thread increments it by CAS and
 * another reads it, each on a thin client of its own (so a write waiting out an unknown outcome
 * does not hold up the reads). Records when each answer came, so a test can measure the longest
 * time a key went without one, counts every error a client saw, and checks at the end that no
 * acknowledged increment was lost or doubled (the counter check of docs/DESIGN.md "How it is
 * tested": acknowledged ≤ final value ≤ acknowledged + unknown).
 *
 * <p>Every value a client is answered (a read, or the current value a mismatch reports) is checked
 * as it comes ({@link #answerViolations}): it counts at least the increments acknowledged before
 * the call started and at most those attempted before it returned (one writer per key, so the
 * counter is the number of increments applied), and one reader never sees its key's counter go
 * back.
 */
final class HotKeyLoad implements AutoCloseable {
  /** One hot key: its range, its answers and its counts. */
  static final class HotKey {
    final int range;
    final byte[] key;
    final ConcurrentLinkedQueue<Long> answers = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<Long> writesAcknowledged = new ConcurrentLinkedQueue<>();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong unknown = new AtomicLong();

    /** CAS increments sent so far, counted before each is sent. */
    final AtomicLong attempted = new AtomicLong();

    HotKey(int range, byte[] key) {
      this.range = range;
      this.key = key;
    }
  }

  private final List<HotKey> keys = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);

  /** The first {@link #ERRORS_KEPT} errors; the rest are only counted (a fast-failing loop). */
  private final ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();

  private final AtomicLong errorCount = new AtomicLong();
  private static final int ERRORS_KEPT = 100;

  /** Answers that no linearizable history allows (at most {@link #ERRORS_KEPT} kept). */
  private final ConcurrentLinkedQueue<String> answerViolations = new ConcurrentLinkedQueue<>();

  private final AtomicLong answersChecked = new AtomicLong();

  /** Creates a counter at 0 in each of {@code ranges} and starts the load on them. */
  HotKeyLoad(TestCluster cluster, List<Integer> ranges) {
    FrsmClient setup = cluster.thinClient();
    Map<Integer, byte[]> chosen = new TreeMap<>();
    for (int i = 0; chosen.size() < ranges.size(); i++) {
      byte[] key = ("hot/" + i).getBytes(UTF_8);
      int range = cluster.rangeOf(key);
      if (ranges.contains(range)) {
        chosen.putIfAbsent(range, key);
      }
    }
    for (Map.Entry<Integer, byte[]> e : chosen.entrySet()) {
      createRetryingNotExecuted(setup, e.getValue());
      keys.add(new HotKey(e.getKey(), e.getValue()));
    }
    for (HotKey k : keys) {
      FrsmClient writer = cluster.thinClient();
      FrsmClient reader = cluster.thinClient();
      threads.add(new Thread(() -> increment(writer, k), "hot-writer-" + k.range));
      threads.add(new Thread(() -> read(reader, k), "hot-reader-" + k.range));
    }
    threads.forEach(Thread::start);
  }

  /**
   * Creates {@code key} at 0; a create refused as not executed (nothing ran: e.g. a node whose
   * flushes are behind refuses writes for a moment) is tried again, for up to a minute.
   */
  private static void createRetryingNotExecuted(FrsmClient client, byte[] key) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    while (true) {
      try {
        client.create(key, "0".getBytes(UTF_8));
        return;
      } catch (io.frsm.api.NotExecutedException e) {
        if (System.nanoTime() - deadline > 0) {
          throw e;
        }
        // A back-off between tries, not a wait for a condition.
        java.util.concurrent.locks.LockSupport.parkNanos(20_000_000L);
      }
    }
  }

  /**
   * Waits until every hot key had an increment acknowledged more than half a second after {@code
   * sinceNanos} (so that the gap of a hand-back is measured too).
   */
  void awaitIncrementsAfter(long sinceNanos, java.time.Duration timeout, String what) {
    Await.until(
        () ->
            keys().stream()
                .allMatch(
                    k ->
                        k.writesAcknowledged.stream().anyMatch(t -> t - sinceNanos > 500_000_000L)),
        timeout,
        what);
  }

  List<HotKey> keys() {
    return keys;
  }

  private void increment(FrsmClient client, HotKey k) {
    Versioned current = null;
    while (running.get()) {
      long acknowledgedBefore = k.acknowledged.get(); // only this thread moves it
      try {
        if (current == null) {
          current = client.get(k.key).orElseThrow();
          k.answers.add(System.nanoTime());
        }
        long next = value(current) + 1;
        byte[] value = Long.toString(next).getBytes(UTF_8);
        k.attempted.incrementAndGet();
        Version v = client.cas(k.key, current.version(), value);
        long now = System.nanoTime();
        k.answers.add(now);
        k.writesAcknowledged.add(now);
        k.acknowledged.incrementAndGet();
        current = new Versioned(value, v);
      } catch (CasMismatchException e) {
        k.answers.add(System.nanoTime()); // an answer: the key is served
        current = e.current().orElseThrow();
        check(k, "mismatch", acknowledgedBefore, value(current), -1);
      } catch (OutcomeUnknownException e) {
        k.unknown.incrementAndGet();
        error(e);
        current = null;
      } catch (FrsmException e) {
        error(e);
        current = null;
      }
    }
  }

  private void read(FrsmClient client, HotKey k) {
    long lastSeen = -1;
    while (running.get()) {
      try {
        long acknowledgedBefore = k.acknowledged.get();
        Optional<Versioned> v = client.get(k.key);
        if (v.isPresent()) {
          k.answers.add(System.nanoTime());
          long seen = value(v.get());
          check(k, "read", acknowledgedBefore, seen, lastSeen);
          lastSeen = Math.max(lastSeen, seen);
        } else {
          answerViolation(k, "read: the counter is gone");
        }
      } catch (FrsmException e) {
        error(e);
      }
    }
  }

  /**
   * Checks {@code value}, answered to a call that started once {@code acknowledgedBefore}
   * increments were acknowledged, against the increments attempted by now and the caller's {@code
   * lastSeen} value (-1: none to compare with).
   */
  private void check(HotKey k, String what, long acknowledgedBefore, long value, long lastSeen) {
    answersChecked.incrementAndGet();
    long attemptedNow = k.attempted.get();
    if (value < acknowledgedBefore || value > attemptedNow) {
      answerViolation(
          k,
          what
              + ": value "
              + value
              + " outside ["
              + acknowledgedBefore
              + " acknowledged before the call, "
              + attemptedNow
              + " attempted by its answer]");
    } else if (value < lastSeen) {
      answerViolation(k, what + ": value " + value + " after " + lastSeen + " (went back)");
    }
  }

  private void answerViolation(HotKey k, String what) {
    if (answerViolations.size() < ERRORS_KEPT) {
      answerViolations.add("range " + k.range + " " + what);
    }
  }

  /** Answers that broke linearizability, as they came (at most 100); empty if none. */
  List<String> answerViolations() {
    return List.copyOf(answerViolations);
  }

  /** How many answers were checked so far (reads and mismatches). */
  long answersChecked() {
    return answersChecked.get();
  }

  private void error(FrsmException e) {
    if (errorCount.incrementAndGet() <= ERRORS_KEPT) {
      errors.add(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }

  private static long value(Versioned v) {
    return Long.parseLong(new String(v.value(), UTF_8));
  }

  /** The first errors clients saw (exception class and message), at most 100. */
  List<String> errors() {
    return List.copyOf(errors);
  }

  /** How many errors clients saw so far. */
  long errorCount() {
    return errorCount.get();
  }

  /**
   * The longest time, in nanoseconds, that {@code k} went without an answer (a read, an
   * acknowledged write, or a mismatch that reported the current value) within [{@code from}, {@code
   * to}] (System.nanoTime).
   */
  static long longestGapNanos(HotKey k, long from, long to) {
    return longestGap(k.answers, from, to);
  }

  /** As {@link #longestGapNanos}, counting acknowledged writes only. */
  static long longestWriteGapNanos(HotKey k, long from, long to) {
    return longestGap(k.writesAcknowledged, from, to);
  }

  private static long longestGap(ConcurrentLinkedQueue<Long> times, long from, long to) {
    List<Long> points = new ArrayList<>();
    points.add(from);
    for (long t : times) {
      if (t - from > 0 && to - t > 0) {
        points.add(t);
      }
    }
    points.add(to);
    points.sort(Long::compare);
    long longest = 0;
    for (int i = 1; i < points.size(); i++) {
      longest = Math.max(longest, points.get(i) - points.get(i - 1));
    }
    return longest;
  }

  /** Stops the load (each thread finishes its call in hand). */
  @Override
  public void close() throws InterruptedException {
    running.set(false);
    for (Thread t : threads) {
      t.join();
    }
  }

  /**
   * After {@link #close}: per key, reads the counter through {@code client} and returns what
   * violates acknowledged ≤ value ≤ acknowledged + unknown, or an empty list.
   */
  List<String> counterViolations(FrsmClient client) {
    List<String> out = new ArrayList<>();
    for (HotKey k : keys) {
      long value = value(client.get(k.key).orElseThrow());
      long low = k.acknowledged.get();
      long high = low + k.unknown.get();
      if (value < low || value > high) {
        out.add("range " + k.range + ": value " + value + " outside [" + low + ", " + high + "]");
      }
    }
    return out;
  }
}
