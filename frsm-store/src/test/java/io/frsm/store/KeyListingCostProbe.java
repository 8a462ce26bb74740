package io.frsm.store;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.lsm.sstable.CellIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22's focused measurement, not a test (it asserts nothing): the CPU time and the bytes
 * allocated per listed key of a settle's listing, paged as the acceptor pages it (1025 keys), by
 * the cell-decoding path used before and by the key-only path. Keys of 512-byte values as in
 * ReplaceTimeBenchmarkIT, in four tables and the memtable. Runs only with {@code
 * -Dfrsm.keylist.probe=KEYS}; prints one line per round.
 */
@EnabledIfSystemProperty(named = "frsm.keylist.probe", matches = "\\d+")
class KeyListingCostProbe {
  private static final int PAGE = 1025;

  @Test
  void listingCostPerKey(@TempDir Path dir) throws Exception {
    int keys = Integer.parseInt(System.getProperty("frsm.keylist.probe"));
    LsmEngine engine =
        LsmEngine.open(
            LsmConfig.builder(dir.resolve("data"))
                .commitLogDirectories(List.of(dir.resolve("log")))
                .scrubEnabled(false)
                .build(),
            NioFileSystem.INSTANCE,
            new SimpleMeterRegistry());
    try {
      Random random = new Random(1);
      List<CompletableFuture<Void>> pending = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        byte[] value = new byte[512];
        random.nextBytes(value);
        Key k = Key.of(String.format("bench-%09d", i).getBytes(StandardCharsets.US_ASCII));
        pending.add(
            engine.write(
                Cell.accepted(k, AcceptedValue.live(1, 1, new Ballot(1, 1, 1), value, true), 0)));
        if (pending.size() == 1000) {
          for (CompletableFuture<Void> f : pending) {
            f.get(60, TimeUnit.SECONDS);
          }
          pending.clear();
        }
        if (i > 0 && i % (keys / 4) == 0) {
          engine.flush().get(60, TimeUnit.SECONDS);
        }
      }
      for (CompletableFuture<Void> f : pending) {
        f.get(60, TimeUnit.SECONDS);
      }
      LsmCellStore store = new LsmCellStore(engine);
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long self = Thread.currentThread().getId();
      for (int round = 0; round < 16; round++) {
        boolean old = round % 2 == 0;
        long bytes0 = threads.getThreadAllocatedBytes(self);
        long cpu0 = threads.getCurrentThreadCpuTime();
        long wall0 = System.nanoTime();
        int listed = 0;
        Key after = null;
        while (true) {
          List<Key> page =
              old
                  ? oldPage(engine, Long.MIN_VALUE, Long.MAX_VALUE, after, PAGE)
                  : store.keysInRange(Long.MIN_VALUE, Long.MAX_VALUE, after, PAGE);
          // The acceptor sends PAGE - 1 keys and the next page starts after the last one sent.
          int sent = Math.min(page.size(), PAGE - 1);
          listed += sent;
          if (page.size() < PAGE) {
            break;
          }
          after = page.get(sent - 1);
        }
        long cpu = threads.getCurrentThreadCpuTime() - cpu0;
        long wall = System.nanoTime() - wall0;
        long bytes = threads.getThreadAllocatedBytes(self) - bytes0;
        System.out.printf(
            "keylist-probe round %d %s: %d keys, cpu %.0f ns/key, wall %.0f ns/key, %.0f B/key,"
                + " %.0f keys/s (cpu)%n",
            round,
            old ? "old (cells)" : "new (keys) ",
            listed,
            (double) cpu / listed,
            (double) wall / listed,
            (double) bytes / listed,
            listed / (cpu / 1e9));
      }
    } finally {
      engine.close();
    }
  }

  /** The cell-decoding listing as LsmCellStore made it before issue 22. */
  private static List<Key> oldPage(LsmEngine engine, long from, long to, Key after, int limit)
      throws Exception {
    long start = after == null ? from : Math.max(from, after.token());
    List<Key> keys = new ArrayList<>();
    try (CellIterator it = engine.scan(start, to)) {
      while (keys.size() < limit && it.hasNext()) {
        Key k = it.next().key();
        if ((after == null || k.compareTo(after) > 0) && !RangeTerm.isReserved(k)) {
          keys.add(k);
        }
      }
    }
    return keys;
  }
}
