package io.frsm.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.sstable.CellIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: the key-only {@link LsmCellStore#keysInRange} (and the caching store in front of it)
 * returns exactly the pages the cell-decoding listing returned, kept here as {@link #oldPage}, and
 * exactly the client keys written: cursors inside and outside the range, limits, reserved
 * range-term keys, tombstones and promises, several tables and the memtable, both halves of a
 * wrapping range.
 */
class KeysInRangeDifferentialTest {

  @Test
  void pagesEqualTheCellListing_onRandomData() throws Exception {
    int pages = 0;
    for (int seed = 1; seed <= 20; seed++) {
      FaultyFileSystem fs = new FaultyFileSystem();
      LsmEngine engine =
          LsmEngine.open(
              LsmConfig.builder(Path.of("/node/data"))
                  .commitLogDirectories(List.of(Path.of("/node/log")))
                  .sstableBlockSizeBytes(512)
                  .scrubEnabled(false)
                  .build(),
              fs,
              new SimpleMeterRegistry());
      try {
        Random random = new Random(seed);
        LsmCellStore store = new LsmCellStore(engine);
        CachingCellStore cached = new CachingCellStore(store, 1 << 20);
        List<Key> pool = new ArrayList<>();
        for (int i = 0; i < 200 + random.nextInt(300); i++) {
          pool.add(
              random.nextInt(20) == 0
                  ? RangeTerm.cellKey(random.nextInt(64))
                  : Key.of(("c" + random.nextInt(100_000)).getBytes(StandardCharsets.UTF_8)));
        }
        TreeSet<Key> clientKeys = new TreeSet<>();
        int rounds = 2 + random.nextInt(4);
        for (int round = 1; round <= rounds; round++) {
          List<CompletableFuture<Void>> pending = new ArrayList<>();
          for (int i = 0; i < pool.size(); i++) {
            Key k = pool.get(random.nextInt(pool.size()));
            pending.add(engine.write(randomCell(random, k, round)));
            if (!RangeTerm.isReserved(k)) {
              clientKeys.add(k);
            }
          }
          for (CompletableFuture<Void> f : pending) {
            f.get(30, TimeUnit.SECONDS);
          }
          if (round < rounds) {
            engine.flush().get(30, TimeUnit.SECONDS);
          }
        }
        for (int q = 0; q < 100; q++) {
          long[] r = range(random, pool);
          int limit = 1 + random.nextInt(random.nextBoolean() ? 5 : 200);
          Key after = cursor(random, pool, r);
          List<Key> expected = oldPage(engine, r[0], r[1], after, limit);
          assertEquals(expected, store.keysInRange(r[0], r[1], after, limit), "seed " + seed);
          assertEquals(expected, cached.keysInRange(r[0], r[1], after, limit), "seed " + seed);
          // Paging through the range with the last key as the cursor lists each client key once.
          List<Key> all = new ArrayList<>();
          Key at = null;
          while (true) {
            List<Key> page = store.keysInRange(r[0], r[1], at, limit);
            assertEquals(oldPage(engine, r[0], r[1], at, limit), page, "seed " + seed);
            pages++;
            all.addAll(page);
            if (page.size() < limit) {
              break;
            }
            at = page.get(page.size() - 1);
          }
          List<Key> model =
              clientKeys.stream().filter(k -> k.token() >= r[0] && k.token() <= r[1]).toList();
          assertEquals(model, all, "seed " + seed + " [" + r[0] + ", " + r[1] + "]");
        }
      } finally {
        engine.kill();
      }
    }
    assertTrue(pages > 2000, "pages " + pages);
  }

  /** The listing as {@link LsmCellStore} made it before issue 22: from the engine's cells. */
  private static List<Key> oldPage(LsmEngine engine, long from, long to, Key after, int limit)
      throws Exception {
    long start = after == null ? from : Math.max(from, after.token());
    List<Key> keys = new ArrayList<>();
    if (start > to) {
      return keys;
    }
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

  private static Cell randomCell(Random random, Key k, int round) {
    Ballot b = new Ballot(round, 1, 1);
    return switch (random.nextInt(5)) {
      case 0 -> Cell.accepted(k, AcceptedValue.delete(1, round, b, random.nextBoolean()), 0);
        // Marked now: no purge expires during the test, so no compaction drops a key between the
        // two listings compared (the engine test covers expired purges).
      case 1 -> Cell.purge(k, new PurgeMark(1, round, System.currentTimeMillis()), 0);
      case 2 -> Cell.promise(k, b, 0);
      default -> {
        byte[] value = new byte[random.nextInt(200)];
        random.nextBytes(value);
        yield Cell.accepted(k, AcceptedValue.live(1, round, b, value, true), 0);
      }
    };
  }

  /** One of: everything, a key's token (or its neighbours) as either bound, a wrapping half. */
  private static long[] range(Random random, List<Key> pool) {
    long a = pool.get(random.nextInt(pool.size())).token() + random.nextInt(3) - 1;
    long b = pool.get(random.nextInt(pool.size())).token() + random.nextInt(3) - 1;
    return switch (random.nextInt(5)) {
      case 0 -> new long[] {Long.MIN_VALUE, Long.MAX_VALUE};
      case 1 -> new long[] {Long.MIN_VALUE, a};
      case 2 -> new long[] {a, Long.MAX_VALUE};
      default -> new long[] {Math.min(a, b), Math.max(a, b)};
    };
  }

  /** No cursor, a stored key's (inside the range or not), or a bound that is not a stored key. */
  private static Key cursor(Random random, List<Key> pool, long[] r) {
    return switch (random.nextInt(4)) {
      case 0 -> null;
      case 1 -> Key.lowestWithToken(r[0] + (r[1] > r[0] ? 1 : 0));
      default -> pool.get(random.nextInt(pool.size()));
    };
  }
}
