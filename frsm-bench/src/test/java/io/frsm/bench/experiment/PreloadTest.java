package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.server.workload.WorkloadRunner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/** Preload's key names and how it handles each outcome of a create. */
class PreloadTest {
  /**
   * An in-memory store whose creates of some keys first fail as scripted: "not executed" (nothing
   * written), "unknown, applied" (written, then the reply lost) or "unknown, not applied".
   */
  private static class Store implements FrsmClient {
    enum Fault {
      NOT_EXECUTED,
      UNKNOWN_APPLIED,
      UNKNOWN_NOT_APPLIED
    }

    final Map<String, byte[]> cells = new ConcurrentHashMap<>();
    final Map<String, Fault> faults = new ConcurrentHashMap<>();
    final LongAdder creates = new LongAdder();

    private static String name(byte[] key) {
      return new String(key, StandardCharsets.US_ASCII);
    }

    @Override
    public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
      creates.increment();
      String k = name(key);
      Fault fault = faults.remove(k);
      if (fault == Fault.NOT_EXECUTED) {
        return CompletableFuture.failedFuture(new NotExecutedException("busy"));
      }
      if (fault == Fault.UNKNOWN_NOT_APPLIED) {
        return CompletableFuture.failedFuture(new OutcomeUnknownException("lost"));
      }
      byte[] had = cells.putIfAbsent(k, value);
      if (had != null) {
        return CompletableFuture.failedFuture(
            new KeyExistsException(new Versioned(had, new Version(1, 0))));
      }
      if (fault == Fault.UNKNOWN_APPLIED) {
        return CompletableFuture.failedFuture(new OutcomeUnknownException("reply lost"));
      }
      return CompletableFuture.completedFuture(new Version(1, 0));
    }

    @Override
    public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
      byte[] v = cells.get(name(key));
      return CompletableFuture.completedFuture(
          Optional.ofNullable(v).map(b -> new Versioned(b, new Version(1, 1))));
    }

    @Override
    public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
      return fenceAsync(key);
    }

    @Override
    public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void close() {}
  }

  @Test
  void keys_areTheWorkloadsBelowItsKeySpace_andSameLengthFillBeyond() {
    assertArrayEquals(WorkloadRunner.key(41), Preload.key(41, 100));
    assertEquals("pre-0000000100", new String(Preload.key(100, 100), StandardCharsets.US_ASCII));
    assertEquals(WorkloadRunner.key(100).length, Preload.key(100, 100).length);
  }

  @Test
  void run_writesEveryKeyOnce_withWorkloadSizedValues_throughEveryFault() throws Exception {
    Store store = new Store();
    store.faults.put("key-0000000003", Store.Fault.NOT_EXECUTED);
    store.faults.put("key-0000000005", Store.Fault.UNKNOWN_APPLIED);
    store.faults.put("pre-0000000011", Store.Fault.UNKNOWN_NOT_APPLIED);
    store.cells.put("key-0000000007", new byte[] {1}); // an earlier preload's
    List<String> progress = new ArrayList<>();

    Preload.Result r = Preload.run(store, 20, 10, 3, progress::add);

    assertEquals(20, store.cells.size());
    for (long i = 0; i < 20; i++) {
      String name = new String(Preload.key(i, 10), StandardCharsets.US_ASCII);
      assertTrue(store.cells.containsKey(name), name);
      if (i != 7) {
        assertEquals(Preload.VALUE_BYTES, store.cells.get(name).length, name);
      }
    }
    assertEquals(19, r.created());
    assertEquals(1, r.existed());
    assertEquals(20, r.keys());
    assertEquals(2, r.unknown());
    assertEquals(0, r.failed());
    // 20 keys, one retried after "not executed", one created again after an absent fence.
    assertEquals(22, store.creates.sum());
  }

  @Test
  void createOne_givesUpAfterMaxCreates_whenEveryOutcomeIsUnknownAndAbsent() {
    FrsmClient alwaysLost =
        new Store() {
          @Override
          public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
            return CompletableFuture.failedFuture(new OutcomeUnknownException("lost"));
          }
        };
    LongAdder unknown = new LongAdder();
    assertEquals(
        Preload.Outcome.FAILED,
        Preload.createOne(
            alwaysLost, Preload.key(1, 10), new byte[1], unknown, new AtomicReference<>()));
    assertEquals(Preload.MAX_CREATES, unknown.sum());
  }
}
