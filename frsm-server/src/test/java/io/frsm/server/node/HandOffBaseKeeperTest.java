package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.consensus.core.Effect;
import io.frsm.consensus.core.Input;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The driver's side of the durable base: the record only after the flush completed, never after a
 * drop that came first, none trusted when the store lost cells.
 */
class HandOffBaseKeeperTest {
  private static final java.time.Duration WAIT = java.time.Duration.ofSeconds(10);

  @TempDir Path data;

  private final AtomicReference<CompletableFuture<Void>> flush = new AtomicReference<>();
  private final java.util.concurrent.atomic.AtomicInteger flushes =
      new java.util.concurrent.atomic.AtomicInteger();
  private final AtomicBoolean lostCells = new AtomicBoolean();

  private HandOffBaseKeeper keeper(HandOffBaseRecords records) {
    return new HandOffBaseKeeper(
        records,
        () -> {
          CompletableFuture<Void> f = new CompletableFuture<>();
          flush.set(f);
          flushes.incrementAndGet();
          return f;
        },
        lostCells::get);
  }

  @Test
  void theRecord_isWrittenOnlyOnceTheFlushCompleted() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c", 1);
    try (HandOffBaseKeeper k = keeper(records)) {
      k.reached(new Effect.BaseReached(3, 7, 1));
      assertFalse(Files.exists(record(3)), "no record before the flush completed");
      assertEquals(List.of(), records.load());
      flush.get().complete(null);
      Await.until(() -> k.written() == 1, WAIT, "k.written() == 1");
      assertEquals(List.of(new Input.RestoreBase(3, 7, 1)), k.restorable());
    }
  }

  @Test
  void aDropBeforeTheFlushCompleted_meansNoRecord_andADropDeletes() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c", 1);
    try (HandOffBaseKeeper k = keeper(records)) {
      k.reached(new Effect.BaseReached(3, 7, 1));
      k.dropped(3);
      flush.get().complete(null); // completes after the drop: its record is stale
      k.reached(new Effect.BaseReached(4, 2, 1));
      Await.until(() -> flushes.get() == 2, WAIT, "flushes.get() == 2");
      flush.get().complete(null);
      Await.until(() -> k.written() == 1, WAIT, "k.written() == 1");
      assertEquals(List.of(new Input.RestoreBase(4, 2, 1)), k.restorable());
      k.dropped(4);
      assertFalse(Files.exists(record(4)));
      assertEquals(List.of(), k.restorable());
    }
  }

  @Test
  void basesReachedDuringAFlush_waitForTheNextOne_oneFlushAtATime() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c", 1);
    try (HandOffBaseKeeper k = keeper(records)) {
      k.reached(new Effect.BaseReached(1, 5, 1));
      CompletableFuture<Void> first = flush.get();
      k.reached(new Effect.BaseReached(2, 5, 1));
      k.reached(new Effect.BaseReached(3, 5, 1));
      assertEquals(1, flushes.get(), "no second flush while one runs");
      first.complete(null);
      Await.until(
          () -> flushes.get() == 2 && k.written() == 1,
          WAIT,
          "flushes.get() == 2 && k.written() == 1");
      assertEquals(List.of(new Input.RestoreBase(1, 5, 1)), k.restorable());
      flush.get().complete(null);
      Await.until(() -> k.written() == 3, WAIT, "k.written() == 3");
      assertEquals(3, k.restorable().size());
      assertEquals(2, flushes.get());
    }
  }

  @Test
  void aFailedFlush_writesNoRecord() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c", 1);
    try (HandOffBaseKeeper k = keeper(records)) {
      k.reached(new Effect.BaseReached(3, 7, 1));
      flush.get().completeExceptionally(new java.io.IOException("disk"));
      Await.until(() -> !k.flushing(), WAIT, "!k.flushing()");
      k.reached(new Effect.BaseReached(5, 7, 1));
      Await.until(() -> flushes.get() == 2, WAIT, "flushes.get() == 2");
      flush.get().complete(null);
      Await.until(() -> k.written() == 1, WAIT, "k.written() == 1");
      assertEquals(List.of(new Input.RestoreBase(5, 7, 1)), k.restorable());
    }
  }

  @Test
  void aStoreThatLostCells_trustsNoRecord_andDeletesThem() throws Exception {
    HandOffBaseRecords records = new HandOffBaseRecords(data, "c", 1);
    records.record(1, 4, 2);
    lostCells.set(true);
    try (HandOffBaseKeeper k = keeper(records)) {
      assertEquals(List.of(), k.restorable());
      assertEquals(1, k.untrusted());
    }
    assertFalse(Files.exists(record(1)));
    lostCells.set(false);
    records.record(1, 4, 2);
    try (HandOffBaseKeeper k = keeper(records)) {
      assertTrue(!k.restorable().isEmpty());
    }
  }

  private Path record(int range) {
    return data.resolve(HandOffBaseRecords.DIRECTORY).resolve("range-" + range);
  }
}
