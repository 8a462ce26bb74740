package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.api.ClientObserver;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
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
 * <p>Per round: the caller's answer is written at {@code expected.next()} or unknown, never a
 * mismatch (which would say "not applied" of a write that applied) nor not-executed; the counter
 * moves by exactly one per applied increment (a written one is counted once, never twice); and the
 * whole history (the idempotent client's CASes, the checker's reads and fences) is linearizable. At
 * least one call must have ended written after more than the client's timeout: an answer the first
 * attempt alone could not have given, so the resend path really ran.
 *
 * <p>Without the resend flag (a resend taken for a first attempt), the leader answers the resend a
 * mismatch: the test fails at the first such round.
 */
class IdempotentTimeoutResendIT {
  private static final Duration CLIENT_TIMEOUT = Duration.ofMillis(300);
  private static final Duration ACCEPT_DELAY = Duration.ofMillis(600);
  private static final int ROUNDS = 6;
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
        byte[] key = "idem/timeout".getBytes(UTF_8);
        calls.create(checker, CHECKER, key, counter(0));
        int range = cluster.rangeOf(key);
        Await.until(
            () -> cluster.holdersOf(range).size() == 1,
            TestCluster.READY_TIMEOUT,
            "one leader of range " + range);
        int leader = cluster.holdersOf(range).get(0);

        long applied = 0;
        List<String> outcomes = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
          Versioned now = calls.fence(checker, CHECKER, key).orElseThrow();
          long n = value(now);
          assertEquals(applied, n, "round " + round + ": the counter counts each increment once");
          holdAccepts(cluster, leader, ACCEPT_DELAY);
          String outcome;
          try {
            calls.cas(idempotent, WRITER, key, now.version(), counter(n + 1));
            outcome = "written";
          } catch (OutcomeUnknownException e) {
            outcome = "unknown";
          } catch (FrsmException e) {
            fail("round " + round + ": an idempotent CAS whose answer came late ended " + e, e);
            return;
          } finally {
            holdAccepts(cluster, leader, Duration.ZERO);
          }
          outcomes.add(outcome);
          // What the increment did: the fence settles an unknown one (it has applied or never
          // will).
          Versioned after = calls.fence(checker, CHECKER, key).orElseThrow();
          long m = value(after);
          assertTrue(m == n || m == n + 1, "round " + round + ": counter " + n + " → " + m);
          if (outcome.equals("written")) {
            assertEquals(n + 1, m, "round " + round + ": answered written, so it applied");
          }
          applied = m;
        }

        List<Ended> writes = ended.stream().filter(e -> e.operation().equals("cas")).toList();
        assertEquals(ROUNDS, writes.size(), "every CAS heard ending: " + writes);
        assertTrue(
            writes.stream()
                .anyMatch(e -> e.outcome().equals("ok") && e.nanos() > CLIENT_TIMEOUT.toNanos()),
            "no CAS was answered written after the client's timeout (no resend answered it): "
                + writes
                + " outcomes "
                + outcomes);
      }
      checkHistory(recorder);
    }
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
