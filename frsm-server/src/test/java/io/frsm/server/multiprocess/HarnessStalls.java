package io.frsm.server.multiprocess;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Times when the test JVM itself did not run (a GC pause, the machine's CPUs taken by others), as
 * jHiccup does: a thread that asks to wake every {@link #TICK} and records each wake-up later than
 * {@link #REPORTED} past it. The fault suite's ZooKeeper, proxies and clients all live in this JVM,
 * so a stall of it is a fault the suite did not mean to play: ZooKeeper answers no ping, clients
 * send nothing, and the nodes' sessions may expire. The suite reports such stalls and does not
 * judge a fault's gap against its bound when one overlaps it (safety is still checked).
 */
final class HarnessStalls implements AutoCloseable {
  private static final long TICK = TimeUnit.MILLISECONDS.toNanos(10);
  private static final long REPORTED = TimeUnit.MILLISECONDS.toNanos(200);

  /** [start, end) of each stall, in System.nanoTime. Guarded by this. */
  private final List<long[]> stalls = new ArrayList<>();

  private final Thread meter;
  private volatile boolean closed;

  HarnessStalls() {
    meter = new Thread(this::measure, "fault-it-stall-meter");
    meter.setDaemon(true);
    meter.start();
  }

  private void measure() {
    while (!closed) {
      long asked = System.nanoTime();
      LockSupport.parkNanos(TICK);
      long woke = System.nanoTime();
      long late = woke - asked - TICK;
      if (late > REPORTED) {
        synchronized (this) {
          stalls.add(new long[] {asked + TICK, woke});
        }
      }
    }
  }

  /** The longest stall within [from, to), or 0. */
  synchronized long longestNanos(long from, long to) {
    long longest = 0;
    for (long[] s : stalls) {
      longest = Math.max(longest, Math.min(to, s[1]) - Math.max(from, s[0]));
    }
    return longest;
  }

  @Override
  public void close() {
    closed = true;
    meter.interrupt();
  }
}
