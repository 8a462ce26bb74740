package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.ClientObserver;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Versioned;
import io.frsm.testkit.history.CheckResult;
import io.frsm.testkit.history.HistoryRecorder;
import io.frsm.testkit.history.LinearizabilityChecker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real client-side timeout followed by a resend (issue 25; docs/PROTOCOL.md "Idempotent
 * resends"): an idempotent thin client's CAS reaches the key's leader, whose accepts to the other
 * replicas are held for {@link #ACCEPT_DELAY}, longer than the client's {@link #CLIENT_TIMEOUT}.
 * The first attempt times out at the client — its outcome unknown there — and is chosen at the
 * leader once the held accepts arrive. The client resends it with the same token; the leader
 * recognises its own value at {@code expected.next()} and answers written.
 *
 * <p>Per round: the caller's answer is written at {@code expected.next()} or unknown (or not
 * executed, only if it did not apply), never a mismatch (which would say "not applied" of a write
 * that applied); the counter moves by exactly one per applied increment (a written one is counted
 * once, never twice); and the whole history (the idempotent client's CASes and fences, the
 * checker's fences) is linearizable. At least one round must have been resent (the leader served
 * two or more attempts of it, counted by its {@code frsm.operations} timer) and answered written;
 * the rounds go on (up to {@link #MAX_ROUNDS}) until one was.
 *
 * <p>Mutations caught: a resend sent as a plain retry (no token) is answered a mismatch; a client
 * that does not resend never gets a written answer after a timeout.
 */
class IdempotentTimeoutResendIT {
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(500);
  private static final Duration ACCEPT_DELAY = Duration.ofMillis(700);

  /** Rounds at least, and at most while no round was resent and answered written yet. */
  private static final int MIN_ROUNDS = 4;

  private static final int MAX_ROUNDS = 12;

  private static final long WRITER = 1;
  private static final long CHECKER = 2;

  /** One call the client's observer heard end. */
  private record Ended(String operation, String outcome, long nanos) {}

  @Test
  void aMutationWhoseAnswerOutlivesTheClientsTimeout_isResent_andAppliedOnce(@TempDir Path dir)
      throws Exception {
    HistoryRecorder recorder = new HistoryRecorder(System::nanoTime);
    RecordedCalls calls = new RecordedCalls(recorder);
    ConcurrentLinkedQueue<Ended> ended = new ConcurrentLinkedQueue<>();
    java.util.concurrent.ScheduledExecutorService timer =
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
    try (TestCluster cluster = TestCluster.withFaults(dir)) {
      FrsmClient checker = cluster.thinClient();
      FrsmClient idempotent;
      try (FrsmClient slow =
          FrsmClient.builder()
              .seeds(cluster.seeds())
              .clusterId(TestCluster.CLUSTER_ID)
              .operationTimeout(CLIENT_TIMEOUT)
              .tls(
                  cluster.tls().admin().caBundle(),
                  cluster.tls().admin().certificateChain(),
                  cluster.tls().admin().privateKey())
              .observer(
                  new ClientObserver() {
                    @Override
                    public void operationEnded(String operation, String outcome, long nanos) {
                      ended.add(new Ended(operation, outcome, nanos));
                    }
                  })
              .build()) {
        idempotent = slow.idempotent();
        // The same sessions with room to answer: after an unknown increment the key's session owes
        // a fence, which this client runs with the faults off (under them it would time out too).
        FrsmClient patient = slow.withTimeout(TestCluster.CLIENT_TIMEOUT);
        byte[] key = "idem/timeout".getBytes(UTF_8);
        calls.create(checker, CHECKER, key, counter(0));
        int range = cluster.rangeOf(key);
        Await.until(
            () -> cluster.holdersOf(range).size() == 1,
            TestCluster.READY_TIMEOUT,
            "one leader of range " + range);
        int leader = cluster.holdersOf(range).get(0);

        long applied = 0;
        int resentAndWritten = 0;
        List<String> outcomes = new ArrayList<>();
        for (int round = 1;
            round <= MAX_ROUNDS && (round <= MIN_ROUNDS || resentAndWritten == 0);
            round++) {
          Versioned now = settle(calls, checker, CHECKER, key);
          long n = value(now);
          assertEquals(applied, n, "round " + round + ": the counter counts each increment once");
          double casesBefore = casesServed(cluster, leader);
          holdAccepts(cluster, leader, ACCEPT_DELAY);
          // The hold ends for messages sent once the first attempt timed out at the client: the
          // first attempt's accepts stay held (it is chosen after the timeout), a resend's round
          // (it needs one while the first attempt's accept is open) is not.
          java.util.concurrent.ScheduledFuture<?> lift =
              timer.schedule(
                  () -> holdAccepts(cluster, leader, Duration.ZERO),
                  CLIENT_TIMEOUT.toMillis() + 50,
                  java.util.concurrent.TimeUnit.MILLISECONDS);
          String outcome;
          try {
            calls.cas(idempotent, WRITER, key, now.version(), counter(n + 1));
            outcome = "written";
          } catch (OutcomeUnknownException e) {
            outcome = "unknown";
          } catch (NotExecutedException e) {
            outcome = "not executed"; // checked below: it must not have applied
          } catch (FrsmException e) {
            fail(
                "round "
                    + round
                    + ": an idempotent CAS whose answer came late ended "
                    + e
                    + " (earlier rounds "
                    + outcomes
                    + ")",
                e);
            return;
          } finally {
            lift.get();
            holdAccepts(cluster, leader, Duration.ZERO);
          }
          if (!outcome.equals("written")) {
            settle(calls, patient, WRITER, key); // the session's fence, the faults off
          }
          // What the increment did: the fence settles an unknown one (it has applied or never
          // will).
          long m = value(settle(calls, checker, CHECKER, key));
          // Counted by the leader once its core answered each attempt: after the fences behind
          // them.
          double attempts = casesServed(cluster, leader) - casesBefore;
          outcomes.add(outcome + " (" + (long) attempts + " attempts at the leader)");
          assertTrue(m == n || m == n + 1, "round " + round + ": counter " + n + " → " + m);
          if (outcome.equals("written")) {
            assertEquals(n + 1, m, "round " + round + ": answered written, so it applied");
            if (attempts >= 2) {
              resentAndWritten++; // the first attempt timed out; a resend was answered written
            }
          } else if (outcome.equals("not executed")) {
            assertEquals(n, m, "round " + round + ": answered not executed, yet it applied");
          }
          applied = m;
        }
        assertTrue(
            resentAndWritten > 0,
            "no CAS was resent and then answered written: " + outcomes + "; observer " + ended);
      }
      checkHistory(recorder);
    } finally {
      timer.shutdownNow();
    }
  }

  /**
   * Fences {@code key} through {@code client} until a fence answers (recorded, failures too): on a
   * loaded machine a fence right after the faults may itself time out.
   */
  private static Versioned settle(
      RecordedCalls calls, FrsmClient client, long process, byte[] key) {
    long deadline = System.nanoTime() + TestCluster.READY_TIMEOUT.toNanos();
    while (true) {
      try {
        return calls.fence(client, process, key).orElseThrow();
      } catch (OutcomeUnknownException | NotExecutedException e) {
        if (System.nanoTime() - deadline > 0) {
          throw new AssertionError("no fence of the counter answered", e);
        }
      }
    }
  }

  /** CAS requests node {@code nodeId} served so far, whatever their outcome. */
  private static double casesServed(TestCluster cluster, int nodeId) {
    return cluster
        .node(nodeId)
        .meterRegistry()
        .find("frsm.operations")
        .tag("type", "cas")
        .timers()
        .stream()
        .mapToDouble(t -> t.count())
        .sum();
  }

  /** Holds every message the leader sends to the other two nodes (accepts among them). */
  private static void holdAccepts(TestCluster cluster, int leader, Duration delay) {
    for (int peer = 1; peer <= cluster.size(); peer++) {
      if (peer != leader) {
        cluster.linkFaults(leader).delayTo(peer, delay);
      }
    }
  }

  private static void checkHistory(HistoryRecorder recorder) {
    // An unknown outcome takes effect at the latest T after the last attempt's arrival, and the
    // attempts of one call (the first and its resends) end within four client timeouts and the
    // resends' pauses.
    long bound =
        TestCluster.BOUNDED_DELAY
            .plus(CLIENT_TIMEOUT.multipliedBy(4))
            .plus(Duration.ofSeconds(1))
            .toNanos();
    CheckResult result = LinearizabilityChecker.checkBoundedFirst(recorder.history(), bound);
    assertTrue(result.isLinearizable(), result::explain);
  }

  private static byte[] counter(long n) {
    return Long.toString(n).getBytes(UTF_8);
  }

  private static long value(Versioned v) {
    return Long.parseLong(new String(v.value(), UTF_8));
  }
}
