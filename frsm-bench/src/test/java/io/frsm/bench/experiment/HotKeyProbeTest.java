package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The recovery experiment's first answers on the hot key after the kill. */
class HotKeyProbeTest {
  private static final byte[] HOT = "hot".getBytes(StandardCharsets.UTF_8);
  private static final byte[] COLD = "cold".getBytes(StandardCharsets.UTF_8);

  /** Completes each call at once with the next scripted outcome. */
  private static final class Scripted implements FrsmClient {
    final List<Throwable> outcomes = new ArrayList<>(); // null: success (a deque refuses null)
    private int answered;

    private <T> CompletableFuture<T> next(T value) {
      Throwable t = outcomes.get(answered++);
      return t == null
          ? CompletableFuture.completedFuture(value)
          : CompletableFuture.failedFuture(t);
    }

    @Override
    public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
      return next(Optional.empty());
    }

    @Override
    public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
      return next(null);
    }

    @Override
    public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
      return next(null);
    }

    @Override
    public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
      return next(null);
    }

    @Override
    public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
      return next(Optional.empty());
    }

    @Override
    public void close() {}
  }

  @Test
  void nothingCountsBeforeTheArming_orOnAnotherKey_orWhenTheCallFailed() {
    Scripted s = new Scripted();
    HotKeyProbe probe = new HotKeyProbe(HOT);
    FrsmClient c = probe.wrap(s);
    s.outcomes.add(null);
    c.getAsync(HOT); // before the kill
    probe.arm(System.nanoTime());
    s.outcomes.add(null);
    c.getAsync(COLD);
    s.outcomes.add(new NotExecutedException("range moving"));
    c.getAsync(HOT).exceptionally(e -> null);
    s.outcomes.add(new NotExecutedException("range moving"));
    c.casAsync(HOT, null, new byte[1]).exceptionally(e -> null);
    assertEquals(0, probe.firstGetNanos());
    assertEquals(0, probe.firstCasNanos());
  }

  @Test
  void theFirstAnswersAfterTheArmingAreKept_aMismatchIsAnAnswer() {
    Scripted s = new Scripted();
    HotKeyProbe probe = new HotKeyProbe(HOT);
    FrsmClient c = probe.wrap(s);
    long armed = System.nanoTime();
    probe.arm(armed);
    s.outcomes.add(new CasMismatchException(null, Optional.empty()));
    c.casAsync(HOT, null, new byte[1]).exceptionally(e -> null);
    long firstCas = probe.firstCasNanos();
    assertTrue(firstCas - armed >= 0, "a mismatched CAS was answered");
    s.outcomes.add(null);
    c.getAsync(HOT);
    long firstGet = probe.firstGetNanos();
    assertTrue(firstGet - firstCas >= 0);
    s.outcomes.add(null);
    c.casAsync(HOT, null, new byte[1]);
    s.outcomes.add(null);
    c.getAsync(HOT);
    assertEquals(firstCas, probe.firstCasNanos(), "only the first answer counts");
    assertEquals(firstGet, probe.firstGetNanos());
  }
}
