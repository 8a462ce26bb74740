package io.frsm.server.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CounterCheckTest {

  @Test
  void counterValue_roundTrips_andRemembersEachClientsLastSequence() {
    CounterValue v = CounterValue.zero().increment(3, 7).increment(1, 2).increment(3, 8);
    CounterValue back = CounterValue.decode(v.encode());
    assertEquals(v, back);
    assertEquals(3, back.count());
    assertTrue(back.includes(3, 8) && back.includes(3, 7) && !back.includes(3, 9));
    assertTrue(!back.includes(2, 0));
  }

  @Test
  void unknownOutcomes_areResolvedByFence_andCountedExactlyOnce() {
    // Every third CAS "times out" after taking effect; every fifth times out without effect.
    InMemoryFrsmClient store = new InMemoryFrsmClient();
    AtomicInteger calls = new AtomicInteger();
    FrsmClient flaky =
        new FrsmClient() {
          @Override
          public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
            return store.getAsync(key);
          }

          @Override
          public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
            return store.createAsync(key, value);
          }

          @Override
          public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] value) {
            int n = calls.incrementAndGet();
            if (n % 5 == 0) {
              return CompletableFuture.failedFuture(new OutcomeUnknownException("lost reply"));
            }
            CompletableFuture<Version> done = store.casAsync(key, expected, value);
            return n % 3 == 0
                ? done.thenCompose(
                    v -> CompletableFuture.failedFuture(new OutcomeUnknownException("late")))
                : done;
          }

          @Override
          public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
            return store.deleteAsync(key, expected);
          }

          @Override
          public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
            return store.fenceAsync(key);
          }

          @Override
          public void close() {}
        };
    CounterCheck check = new CounterCheck(flaky, 2, "t");
    long seq = 0;
    for (int i = 0; i < 300; i++) {
      check.incrementOnce(i % 2, 1, seq++);
    }
    assertEquals(List.of(), check.verify());
    assertTrue(check.unknownOutcomesResolved() > 50);
    assertTrue(check.incrementsTookEffect() > 150);
  }
}
