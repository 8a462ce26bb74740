package io.frsm.server.node;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.Versioned;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A closed-loop client load for a benchmark IT that measures what a cluster change does to the
 * clients: {@code callers} threads, each repeating a linearizable get of a random key of {@code
 * keys}, half of them followed by a CAS writing the key's own value back at the version read (so
 * {@link BenchKeys#assertSamplesReadBack} still holds afterwards). Every call's end time and
 * latency is kept, so throughput and p99 can be taken over any window afterwards ({@link #window}),
 * e.g. before, during and after a join.
 */
final class ForegroundLoad implements AutoCloseable {
  private final List<Caller> callers = new ArrayList<>();
  private volatile boolean running = true;

  ForegroundLoad(FrsmClient client, BenchKeys keys, int keyCount, int callers) {
    for (int c = 0; c < callers; c++) {
      Caller caller = new Caller(client, keys, keyCount);
      this.callers.add(caller);
      caller.thread.start();
    }
  }

  /** What the calls that ended in {@code [fromNanos, toNanos)} (System.nanoTime) did. */
  Window window(long fromNanos, long toNanos) {
    int ops = 0;
    int errors = 0;
    long[] latencies = new long[0];
    for (Caller c : callers) {
      long[] mine = new long[c.count];
      int n = 0;
      for (int i = 0; i < c.count; i++) {
        if (c.ends[i] >= fromNanos && c.ends[i] < toNanos) {
          if (c.latencies[i] < 0) {
            errors++;
          } else {
            mine[n++] = c.latencies[i];
          }
        }
      }
      int old = latencies.length;
      latencies = Arrays.copyOf(latencies, old + n);
      System.arraycopy(mine, 0, latencies, old, n);
      ops += n;
    }
    Arrays.sort(latencies);
    double seconds = (toNanos - fromNanos) / 1e9;
    double p99Millis =
        latencies.length == 0
            ? Double.NaN
            : latencies[Math.min(latencies.length - 1, (int) (latencies.length * 0.99))] / 1e6;
    return new Window(seconds, ops / seconds, p99Millis, errors);
  }

  /**
   * Stops every caller and waits for their last calls, so the windows read settled records; a
   * second call does nothing more.
   */
  @Override
  public void close() throws InterruptedException {
    running = false;
    for (Caller c : callers) {
      c.thread.join();
    }
  }

  /**
   * One window's figures: calls answered per second, their p99 in ms, and calls that failed (not
   * counted in the throughput nor the p99). A CAS mismatch (two callers on one key) is an answer.
   */
  record Window(double seconds, double opsPerSecond, double p99Millis, int errors) {
    @Override
    public String toString() {
      return String.format(
          "%.1fs %.0f ops/s p99 %.1f ms errors %d", seconds, opsPerSecond, p99Millis, errors);
    }
  }

  private final class Caller {
    final FrsmClient client;
    final BenchKeys keys;
    final int keyCount;
    final Thread thread;
    // Written by this caller's thread only, read after it is joined.
    long[] ends = new long[1 << 16];
    long[] latencies = new long[1 << 16];
    int count;

    Caller(FrsmClient client, BenchKeys keys, int keyCount) {
      this.client = client;
      this.keys = keys;
      this.keyCount = keyCount;
      this.thread = new Thread(this::run, "foreground-load");
      this.thread.setDaemon(true);
    }

    void run() {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      while (running) {
        int i = random.nextInt(keyCount);
        long start = System.nanoTime();
        Optional<Versioned> read;
        try {
          read = client.get(keys.key(i));
        } catch (RuntimeException e) {
          record(start, true);
          continue;
        }
        record(start, false);
        if (read.isEmpty() || !random.nextBoolean()) {
          continue;
        }
        start = System.nanoTime();
        try {
          client.cas(keys.key(i), read.get().version(), keys.value(i));
          record(start, false);
        } catch (CasMismatchException e) {
          record(start, false);
        } catch (RuntimeException e) {
          record(start, true);
        }
      }
    }

    private void record(long start, boolean failed) {
      long end = System.nanoTime();
      if (count == ends.length) {
        ends = Arrays.copyOf(ends, count * 2);
        latencies = Arrays.copyOf(latencies, count * 2);
      }
      ends[count] = end;
      latencies[count] = failed ? -1 : end - start;
      count++;
    }
  }
}
