package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.consensus.core.LeaseConfig;
import io.frsm.server.config.ConsensusKeys;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryJsonWriter;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.LinearizabilityChecker;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The paper's Appendix C test on a real three-node cluster: clients CAS-increment counters from
 * several threads (embedded and thin clients) while the leader of counter 0's range is killed — no
 * drain, no flush, no deregistration — another replica takes the range over (the fail-over time is
 * measured and printed), and the killed node is restarted on its directories: increments through
 * its own embedded client start right after the restart, without waiting for its ranges, and it
 * gets its natural leadership back. An increment with an unknown outcome is resolved with {@code
 * fence}: each counter value carries, per client, the sequence number of its last increment that
 * took effect. At the end every counter equals the increments that took effect (none lost, none
 * doubled), and the recorded history is linearizable; the history is written under {@code
 * target/histories/} before either is checked, so a failing run leaves it behind.
 */
class CrashRestartIT {
  private static final int KEYS = 3;
  private static final long PHASE_INCREMENTS = 40;
  private static final Duration PHASE_DEADLINE = Duration.ofSeconds(60);
  private static final Path HISTORY = Path.of("target", "histories", "crash-restart.jsonl");

  private final HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
  private final RecordedCalls calls = new RecordedCalls(recorder);
  private final AtomicLongArray tookEffect = new AtomicLongArray(KEYS);
  private final AtomicLong totalTookEffect = new AtomicLong();
  private final AtomicLong unknownsResolved = new AtomicLong();
  private final AtomicBoolean stop = new AtomicBoolean();
  private volatile long killedAt = Long.MAX_VALUE;
  private final AtomicLong firstAckAfterKill = new AtomicLong();
  private final ConcurrentLinkedQueue<Throwable> workerFailures = new ConcurrentLinkedQueue<>();

  @Test
  void killedNode_restartsOnItsDirectories_andNoIncrementIsLostOrDoubled(@TempDir Path dir)
      throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      int range = cluster.rangeOf(key(0));
      int leader = cluster.holdersOf(range).get(0);
      assertEquals(cluster.ring().replicasOfRange(range).get(0), leader, "the natural leader");
      List<Integer> others = new ArrayList<>();
      for (int id = 1; id <= cluster.size(); id++) {
        if (id != leader) {
          others.add(id);
        }
      }
      FrsmClient setup = cluster.node(others.get(0)).client();
      for (int k = 0; k < KEYS; k++) {
        create(setup, 100, key(k), new Counter(0, new TreeMap<>()).encode());
      }
      List<FrsmClient> clients =
          List.of(
              cluster.node(others.get(0)).client(),
              cluster.node(others.get(1)).client(),
              cluster.thinClient(),
              cluster.thinClient());
      List<Thread> workers = new ArrayList<>();
      for (int c = 0; c < clients.size(); c++) {
        int clientId = c;
        FrsmClient client = clients.get(c);
        Thread t =
            new Thread(
                () -> {
                  try {
                    work(clientId, client);
                  } catch (Throwable e) {
                    workerFailures.add(e);
                  }
                },
                "increments-" + c);
        workers.add(t);
        t.start();
      }
      try {
        awaitIncrements(PHASE_INCREMENTS);

        int bootBefore = cluster.node(leader).boot();
        long crashedAt = System.nanoTime();
        cluster.crash(leader);
        killedAt = System.nanoTime(); // increments of counter 0 invoked from now on are timed
        long atCrash = totalTookEffect.get();
        int standIn = cluster.ring().replicasOfRange(range).get(1);
        cluster.awaitLeader(range, standIn, PHASE_DEADLINE);
        long takeOverNanos = System.nanoTime() - crashedAt;
        awaitCondition(
            () -> firstAckAfterKill.get() != 0 || !workerFailures.isEmpty(),
            PHASE_DEADLINE,
            "an increment of counter 0 invoked after its leader was killed");
        long failOverNanos = firstAckAfterKill.get() - crashedAt;
        // Such an increment can only have been accepted by the successor, whose term was granted
        // after the crash began: its first accept waited L·(1+ρ) after that grant (rule 4).
        long successorWait =
            new LeaseConfig(
                    true,
                    ConsensusKeys.LEASE.defaultValue(),
                    ConsensusKeys.CLOCK_DRIFT_PPM.defaultValue())
                .successorWaitNanos();
        assertTrue(
            failOverNanos >= successorWait,
            "an increment acknowledged "
                + failOverNanos
                + " ns after the kill: the successor did"
                + " not wait L(1+rho) = "
                + successorWait
                + " ns");
        awaitIncrements(atCrash + PHASE_INCREMENTS); // the other two carry on

        long restartedAt = System.nanoTime();
        FrsmNode restarted = cluster.restart(leader);
        assertEquals(bootBefore + 1, restarted.boot(), "the boot counter moved on");
        // It serves at once, without waiting for its ranges: increments through its own embedded
        // client right after the restart (before or while the stand-in hands the range back).
        FrsmClient onRestarted = restarted.client();
        boolean ledAtFirstIncrement = restarted.leadsRange(range);
        increment(4, onRestarted, 0, 0);
        long firstIncrementNanos = System.nanoTime() - restartedAt;
        cluster.awaitLeader(range, leader, PHASE_DEADLINE);
        long handBackNanos = System.nanoTime() - restartedAt;
        for (int i = 1; i < 5; i++) {
          increment(4, onRestarted, i % KEYS, i);
        }
        System.out.printf(
            "crash/restart: node %d (leader of counter 0's range %d) killed; node %d won the range"
                + " %d ms after the kill began; the first increment of counter 0 invoked after the"
                + " kill was acknowledged %d ms after it began; after the restart the first"
                + " increment through the restarted node (which %s the range when it was invoked)"
                + " was acknowledged %d ms after the restart began; it led the range again by"
                + " %d ms after it%n",
            leader,
            range,
            standIn,
            TimeUnit.NANOSECONDS.toMillis(takeOverNanos),
            TimeUnit.NANOSECONDS.toMillis(failOverNanos),
            ledAtFirstIncrement ? "led" : "did not lead",
            TimeUnit.NANOSECONDS.toMillis(firstIncrementNanos),
            TimeUnit.NANOSECONDS.toMillis(handBackNanos));
        long atRestart = totalTookEffect.get();
        awaitIncrements(atRestart + PHASE_INCREMENTS);
      } finally {
        stop.set(true);
        for (Thread t : workers) {
          t.join(TimeUnit.SECONDS.toMillis(30));
        }
      }
      if (!workerFailures.isEmpty()) {
        AssertionError e = new AssertionError("a client failed", workerFailures.peek());
        workerFailures.forEach(e::addSuppressed);
        throw e;
      }

      FrsmClient reader = cluster.node(leader).client();
      List<Counter> finalValues = new ArrayList<>();
      for (int k = 0; k < KEYS; k++) {
        finalValues.add(Counter.decode(get(reader, 100, key(k)).orElseThrow().value()));
      }
      // The evidence first: a failing run leaves its history behind.
      writeHistory();
      for (int k = 0; k < KEYS; k++) {
        assertEquals(
            tookEffect.get(k),
            finalValues.get(k).count(),
            "counter " + k + " must equal the increments that took effect; history: " + HISTORY);
      }
      checkHistory();
      System.out.printf(
          "crash/restart: %d increments took effect, %d unknown outcomes resolved by fence,"
              + " %d operations recorded%n",
          totalTookEffect.get(), unknownsResolved.get(), recorder.history().size());
    }
  }

  private void writeHistory() throws Exception {
    Files.createDirectories(HISTORY.getParent());
    try (Writer out = Files.newBufferedWriter(HISTORY)) {
      HistoryJsonWriter.write(recorder.history(), out);
    }
  }

  private void checkHistory() {
    var history = recorder.history();
    // Thin clients leave τ to the node (arrival): an unknown outcome takes effect at the latest
    // T after arrival, and a request arrives within the client timeout of its call.
    long bound =
        TestCluster.BOUNDED_DELAY
            .plus(TestCluster.CLIENT_TIMEOUT)
            .plus(Duration.ofSeconds(1))
            .toNanos();
    CheckResult result = LinearizabilityChecker.checkBoundedFirst(history, bound);
    assertTrue(result.isLinearizable(), () -> result.explain() + "\nhistory: " + HISTORY);
  }

  private void awaitIncrements(long target) {
    awaitCondition(
        () -> totalTookEffect.get() >= target || !workerFailures.isEmpty(),
        PHASE_DEADLINE,
        "increments to reach " + target + " (at " + totalTookEffect.get() + ")");
    if (!workerFailures.isEmpty()) {
      throw new AssertionError("a client failed", workerFailures.peek());
    }
  }

  private static void awaitCondition(BooleanSupplier condition, Duration timeout, String what) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        fail("timed out waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private void work(int clientId, FrsmClient client) {
    SplittableRandom random = new SplittableRandom(clientId);
    for (long seq = 0; !stop.get(); seq++) {
      increment(clientId, client, random.nextInt(KEYS), seq);
    }
  }

  /** One increment, Appendix C style; returns once it took effect or surely never will. */
  private void increment(int clientId, FrsmClient client, int k, long seq) {
    byte[] key = key(k);
    long deadline = System.nanoTime() + PHASE_DEADLINE.toNanos();
    Versioned current = null;
    while (System.nanoTime() - deadline < 0) {
      try {
        if (current == null) {
          current = get(client, clientId, key).orElseThrow();
        }
        Counter next = Counter.decode(current.value()).increment(clientId, seq);
        long invokedAt = System.nanoTime();
        cas(client, clientId, key, current.version(), next.encode());
        if (k == 0 && invokedAt - killedAt > 0) {
          firstAckAfterKill.compareAndSet(0, System.nanoTime());
        }
        tookEffect(k);
        return;
      } catch (CasMismatchException e) {
        current = e.current().orElseThrow(() -> new AssertionError("counters are never deleted"));
      } catch (OutcomeUnknownException e) {
        Versioned fenced = fenceUntilAnswered(client, clientId, key, deadline);
        unknownsResolved.incrementAndGet();
        if (Counter.decode(fenced.value()).lastSeq(clientId) == seq) {
          tookEffect(k);
          return;
        }
        current = fenced; // it never will take effect now: try again
      } catch (NotExecutedException e) {
        current = null; // did not take effect: read again and retry
      }
    }
    throw new AssertionError("increment " + seq + " of client " + clientId + " never finished");
  }

  private void tookEffect(int k) {
    tookEffect.incrementAndGet(k);
    totalTookEffect.incrementAndGet();
  }

  private Versioned fenceUntilAnswered(FrsmClient client, int clientId, byte[] key, long deadline) {
    while (System.nanoTime() - deadline < 0) {
      try {
        return fence(client, clientId, key).orElseThrow();
      } catch (NotExecutedException | OutcomeUnknownException e) {
        // The fence itself did not finish: fence again (also idempotent in effect).
      }
    }
    throw new AssertionError("no fence finished before the deadline");
  }

  // Recorded operations.

  private Optional<Versioned> get(FrsmClient c, int clientId, byte[] key) {
    return calls.get(c, clientId, key);
  }

  private Optional<Versioned> fence(FrsmClient c, int clientId, byte[] key) {
    return calls.fence(c, clientId, key);
  }

  private void create(FrsmClient c, int clientId, byte[] key, byte[] value) {
    calls.create(c, clientId, key, value);
  }

  private void cas(FrsmClient c, int clientId, byte[] key, Version expected, byte[] value) {
    calls.cas(c, clientId, key, expected, value);
  }

  private static byte[] key(int k) {
    return ("counter-" + k).getBytes(US_ASCII);
  }

  /** A counter and, per client, the sequence number of its last increment that took effect. */
  private record Counter(long count, TreeMap<Integer, Long> lastSeqByClient) {
    Counter increment(int client, long seq) {
      TreeMap<Integer, Long> tags = new TreeMap<>(lastSeqByClient);
      tags.put(client, seq);
      return new Counter(count + 1, tags);
    }

    long lastSeq(int client) {
      return lastSeqByClient.getOrDefault(client, -1L);
    }

    byte[] encode() {
      StringBuilder b = new StringBuilder().append(count);
      lastSeqByClient.forEach((c, s) -> b.append(' ').append(c).append(':').append(s));
      return b.toString().getBytes(US_ASCII);
    }

    static Counter decode(byte[] bytes) {
      String[] parts = new String(bytes, US_ASCII).split(" ");
      TreeMap<Integer, Long> tags = new TreeMap<>();
      for (int i = 1; i < parts.length; i++) {
        int colon = parts[i].indexOf(':');
        tags.put(
            Integer.parseInt(parts[i].substring(0, colon)),
            Long.parseLong(parts[i].substring(colon + 1)));
      }
      return new Counter(Long.parseLong(parts[0]), tags);
    }
  }
}
