package io.frsm.server.multiprocess;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.server.workload.CounterCheck;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The fault suite's load on a recording client: the Appendix C counter increments ({@link
 * CounterCheck}), gets of every counter, and a client creating fresh keys and deleting them again.
 * Errors the faults cause are counted, not thrown; anything else a thread throws is kept for the
 * test to fail with.
 */
final class FaultLoad {
  private static final long ERROR_BACKOFF_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

  private final CounterCheck check;
  private final FrsmClient client;
  private final List<byte[]> counterKeys;
  private final int hotCounter;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final List<Thread> threads = new ArrayList<>();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
  private final LongAdder clientErrors = new LongAdder();
  private final LongAdder createsDeleted = new LongAdder();

  FaultLoad(FrsmClient client, CounterCheck check, List<byte[]> counterKeys, int hotCounter) {
    this.client = client;
    this.check = check;
    this.counterKeys = counterKeys;
    this.hotCounter = hotCounter;
  }

  /**
   * Per counter one incrementer and one reader, each with a thin client of its own (so a call
   * waiting on one key never holds up another key's answers, and each key's gaps are its own), a
   * second incrementer on the hot counter (CAS races), and the creates/deletes client.
   */
  void start() {
    for (int c = 0; c < counterKeys.size(); c++) {
      int counter = c;
      spawn("increments-" + c, () -> increments(counter, counter));
      spawn("reads-" + c, () -> reads(counterKeys.get(counter)));
    }
    spawn("increments-hot", () -> increments(counterKeys.size(), hotCounter));
    spawn("creates-deletes", this::createsAndDeletes);
  }

  private void spawn(String name, Runnable body) {
    Thread t =
        new Thread(
            () -> {
              try {
                body.run();
              } catch (Throwable e) {
                failures.add(e);
              }
            },
            name);
    t.setDaemon(true); // never keeps the JVM alive, whatever happens to the cluster
    threads.add(t);
    t.start();
  }

  private void increments(int clientId, int counter) {
    for (long seq = 0; !stop.get(); seq++) {
      try {
        check.incrementOnce(counter, clientId, seq);
      } catch (FrsmException e) {
        failed();
      }
    }
  }

  private void reads(byte[] key) {
    while (!stop.get()) {
      try {
        client.get(key);
      } catch (FrsmException e) {
        failed();
      }
    }
  }

  private void createsAndDeletes() {
    for (long n = 0; !stop.get(); n++) {
      byte[] key = ("fault-cd-" + n).getBytes(StandardCharsets.US_ASCII);
      try {
        Version v = client.create(key, ("v" + n).getBytes(StandardCharsets.US_ASCII));
        client.delete(key, v);
        createsDeleted.increment();
      } catch (FrsmException e) {
        failed(); // a fresh key next: an unknown outcome here is the checker's to judge
      }
    }
  }

  private void failed() {
    clientErrors.increment();
    if (!stop.get()) {
      LockSupport.parkNanos(ERROR_BACKOFF_NANOS); // a failing call must not spin
    }
  }

  /** Stops every thread and waits for them (30 s in all); returns the names still running. */
  List<String> stop() throws InterruptedException {
    stop.set(true);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (Thread t : threads) {
      t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    return threads.stream().filter(Thread::isAlive).map(Thread::getName).toList();
  }

  /** Throws what a load thread threw, if any. */
  void throwFailures() {
    if (!failures.isEmpty()) {
      AssertionError e = new AssertionError("a load thread failed", failures.peek());
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }

  /** False once a load thread failed (the test stops waiting and reports it). */
  boolean stillRunning() {
    return failures.isEmpty();
  }

  long clientErrors() {
    return clientErrors.sum();
  }

  long createsDeleted() {
    return createsDeleted.sum();
  }
}
