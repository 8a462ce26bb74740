package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryJsonWriter;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.Input;
import io.frsm.testkit.history.LinearizabilityChecker;
import io.frsm.testkit.history.OperationKind;
import io.frsm.testkit.history.Output;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many threads share one client, as a storage service's request threads do, on a few hot keys: one
 * embedded and one thin client, each used by several incrementing threads and by a reader that
 * fires bursts of concurrent gets. A client's session then has reads of a key running side by side
 * and CAS calls that lost to the one ahead of them (answered by a read, not sent). Every increment
 * must be counted once, the recorded history must be linearizable, and each burst's answers, taken
 * in issue order, must never go back in time (session ordering). On loopback a burst's reads rarely
 * end out of order around a write, so this checks the whole path end to end; that a read older than
 * the one before it must be run again is shown by {@code KeySessionsTest}'s racing case.
 */
class SharedClientHotKeyIT {
  private static final int KEYS = 2;
  private static final int THREADS_PER_CLIENT = 4;
  private static final int BURST = 4;
  private static final long INCREMENTS = 300;
  private static final Duration DEADLINE = Duration.ofSeconds(90);
  private static final Path HISTORY = Path.of("target", "histories", "shared-client-hot-key.jsonl");

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final RecordedCalls calls = new RecordedCalls(recorder);
  private final AtomicLongArray tookEffect = new AtomicLongArray(KEYS);
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong bursts = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();

  @Test
  void threadsSharingAClient_onHotKeys_loseNoIncrement_andReadsNeverGoBack(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      FrsmClient setup = cluster.node(1).client();
      for (int k = 0; k < KEYS; k++) {
        calls.create(setup, 100, key(k), encode(0, -1, -1));
      }
      List<FrsmClient> clients = List.of(cluster.node(2).client(), cluster.thinClient());
      List<Thread> threads = new ArrayList<>();
      int id = 0;
      for (FrsmClient client : clients) {
        for (int t = 0; t < THREADS_PER_CLIENT; t++) {
          int worker = id++;
          threads.add(start("increments-" + worker, () -> increments(worker, client)));
        }
        int reader = id++;
        threads.add(start("bursts-" + reader, () -> bursts(reader, client)));
      }
      try {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while ((total.get() < INCREMENTS || bursts.get() < 50) && failures.isEmpty()) {
          if (System.nanoTime() - deadline > 0) {
            fail("timed out: " + total.get() + " increments, " + bursts.get() + " bursts");
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
      } finally {
        stop.set(true);
        for (Thread t : threads) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
      if (!failures.isEmpty()) {
        AssertionError e = new AssertionError("a worker failed", failures.peek());
        failures.forEach(e::addSuppressed);
        throw e;
      }
      Files.createDirectories(HISTORY.getParent());
      try (Writer out = Files.newBufferedWriter(HISTORY)) {
        HistoryJsonWriter.write(recorder.history(), out);
      }
      for (int k = 0; k < KEYS; k++) {
        assertEquals(
            tookEffect.get(k),
            count(setup.get(key(k)).orElseThrow()),
            "counter " + k + " must equal the increments that took effect; history: " + HISTORY);
      }
      long bound =
          TestCluster.BOUNDED_DELAY
              .plus(TestCluster.CLIENT_TIMEOUT)
              .plus(Duration.ofSeconds(1))
              .toNanos();
      CheckResult result = LinearizabilityChecker.checkBoundedFirst(recorder.history(), bound);
      assertTrue(result.isLinearizable(), () -> result.explain() + "\nhistory: " + HISTORY);
    }
  }

  private Thread start(String name, Runnable body) {
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
    t.start();
    return t;
  }

  /** Appendix C increments: each value names the worker and sequence number that wrote it. */
  private void increments(int worker, FrsmClient client) {
    SplittableRandom random = new SplittableRandom(worker);
    for (long seq = 0; !stop.get(); seq++) {
      int k = random.nextInt(KEYS);
      Versioned current = null;
      while (true) {
        try {
          if (current == null) {
            current = calls.get(client, worker, key(k)).orElseThrow();
          }
          calls.cas(
              client, worker, key(k), current.version(), encode(count(current) + 1, worker, seq));
          tookEffect.incrementAndGet(k);
          total.incrementAndGet();
          break;
        } catch (CasMismatchException e) {
          current = e.current().orElseThrow(() -> new AssertionError("counters are never deleted"));
        } catch (OutcomeUnknownException e) {
          Versioned fenced = fence(client, worker, key(k));
          if (writer(fenced) == worker && sequence(fenced) == seq) {
            tookEffect.incrementAndGet(k);
            total.incrementAndGet();
            break;
          }
          current = fenced;
        } catch (NotExecutedException e) {
          current = null;
        }
        if (stop.get()) {
          return; // the last attempt failed definitely: nothing of it took effect
        }
      }
    }
  }

  /** Bursts of concurrent gets of counter 0 through one client: in issue order, never older. */
  private void bursts(int reader, FrsmClient client) {
    long floor = -1;
    while (!stop.get()) {
      List<CompletableFuture<Optional<Versioned>>> burst = new ArrayList<>();
      List<HistoryRecorder.Handle> handles = new ArrayList<>();
      for (int i = 0; i < BURST; i++) {
        handles.add(recorder.invoke(reader * 100 + i, OperationKind.GET, key(0), Input.none()));
        burst.add(client.getAsync(key(0)));
      }
      for (int i = 0; i < BURST; i++) {
        Optional<Versioned> value;
        try {
          value = burst.get(i).join();
        } catch (CompletionException e) {
          if (e.getCause() instanceof FrsmException f) {
            recorder.complete(handles.get(i), Output.ofFailure(f));
            continue;
          }
          throw e;
        }
        recorder.complete(handles.get(i), Output.ofRead(value));
        long c = count(value.orElseThrow());
        assertTrue(c >= floor, "read " + i + " of a burst went back in time: " + c + " < " + floor);
        floor = c;
      }
      bursts.incrementAndGet();
    }
  }

  /** Fences until one is answered (a fence is idempotent in effect). */
  private Versioned fence(FrsmClient c, int worker, byte[] key) {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (System.nanoTime() - deadline < 0) {
      try {
        return calls.fence(c, worker, key).orElseThrow();
      } catch (NotExecutedException | OutcomeUnknownException e) {
        // not answered: fence again
      }
    }
    throw new AssertionError("no fence finished before the deadline");
  }

  private static byte[] key(int k) {
    return ("hot-" + k).getBytes(US_ASCII);
  }

  /** "count writer seq": the count, and which worker's which increment wrote it. */
  private static byte[] encode(long count, int writer, long seq) {
    return (count + " " + writer + " " + seq).getBytes(US_ASCII);
  }

  private static long count(Versioned v) {
    return Long.parseLong(part(v, 0));
  }

  private static int writer(Versioned v) {
    return Integer.parseInt(part(v, 1));
  }

  private static long sequence(Versioned v) {
    return Long.parseLong(part(v, 2));
  }

  private static String part(Versioned v, int i) {
    return new String(v.value(), US_ASCII).split(" ")[i];
  }
}
