package io.frsm.lsm;

import static io.frsm.lsm.TestCells.deleted;
import static io.frsm.lsm.TestCells.live;
import static io.frsm.lsm.TestCells.promise;
import static io.frsm.lsm.TestCells.purge;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.frsm.lsm.sstable.KeyIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: {@link LsmEngine#scanKeys} lists exactly the keys of {@link LsmEngine#scan}'s cells
 * (the path listings used before), in the same order, and fails exactly where the scan fails.
 * Random data over several tables and memtables, with overwrites, deletes, purge marks, promises,
 * expired purges dropped by compaction, range bounds at and next to key tokens, the two halves of a
 * wrapping range, empty ranges, blocks cached by point reads among blocks read by the scan, and
 * damaged tables.
 */
class KeyListingDifferentialTest {
  private static final Path DATA = Path.of("/node/data");
  private static final long GRACE_MS = 60_000;

  private final FaultyFileSystem fs = new FaultyFileSystem();
  private final AtomicLong clock = new AtomicLong(1_000_000);
  private final List<LsmEngine> open = new ArrayList<>();

  private LsmEngine open() throws IOException {
    LsmConfig config =
        LsmConfig.builder(DATA)
            .commitLogDirectories(List.of(Path.of("/node/cl0")))
            .sstableBlockSizeBytes(512)
            .minorCompactionMinTables(32)
            .blockCacheSizeBytes(1 << 16)
            .tombstoneGracePeriod(Duration.ofMillis(GRACE_MS))
            .scrubEnabled(false)
            .build();
    LsmEngine e = LsmEngine.open(config, fs, new SimpleMeterRegistry(), clock::get);
    open.add(e);
    return e;
  }

  @AfterEach
  void killAll() {
    for (LsmEngine e : open) {
      e.kill();
    }
  }

  @Test
  void randomData_sameKeysAsTheCellScan() throws Exception {
    int compared = 0;
    for (int seed = 1; seed <= 30; seed++) {
      Random random = new Random(seed);
      LsmEngine engine = open();
      List<Key> pool = keyPool(random, 50 + random.nextInt(400));
      TreeSet<Key> written = new TreeSet<>();
      int rounds = 2 + random.nextInt(5);
      for (int round = 0; round < rounds; round++) {
        writeRound(engine, random, pool, written, round);
        if (round < rounds - 1) {
          engine.flush().get(30, TimeUnit.SECONDS); // the last round stays in the memtable
        }
      }
      for (int q = 0; q < 150; q++) {
        // Point reads cache their blocks: scans then meet cached blocks among the ones they read
        // into their own buffer.
        engine.get(pool.get(random.nextInt(pool.size())));
        long[] r = randomRange(random, pool);
        List<Key> listed = listKeys(engine, r[0], r[1]);
        assertEquals(listCells(engine, r[0], r[1]), listed, "seed " + seed + " " + show(r));
        // Nothing expired yet: every key written in the range is listed, tombstones included.
        assertEquals(inRange(written, r[0], r[1]), listed, "seed " + seed + " " + show(r));
        compared++;
      }
      // A flush in flight: the listing meets frozen memtables and freshly written tables.
      writeRound(engine, random, pool, written, rounds);
      CompletableFuture<Void> flushing = engine.flush();
      for (int q = 0; q < 20; q++) {
        long[] r = randomRange(random, pool);
        assertEquals(inRange(written, r[0], r[1]), listKeys(engine, r[0], r[1]), show(r));
      }
      flushing.get(30, TimeUnit.SECONDS);
      // Purges past their grace period: compaction drops those keys, from both listings alike.
      clock.addAndGet(GRACE_MS * 10);
      engine.compactMajor().get(30, TimeUnit.SECONDS);
      writeRound(engine, random, pool, written, rounds + 1);
      for (int q = 0; q < 50; q++) {
        long[] r = randomRange(random, pool);
        assertEquals(listCells(engine, r[0], r[1]), listKeys(engine, r[0], r[1]), show(r));
        compared++;
      }
      engine.close();
      for (Path p : fs.list(DATA)) {
        fs.delete(p);
      }
      for (Path p : fs.list(Path.of("/node/cl0"))) {
        fs.delete(p);
      }
    }
    assertTrue(compared >= 30 * 200, "compared " + compared);
  }

  @Test
  void damagedTable_failsExactlyWhereTheCellScanFails() throws Exception {
    int failures = 0;
    for (int seed = 1; seed <= 25; seed++) {
      Random random = new Random(100 + seed);
      LsmEngine engine = open();
      List<Key> pool = keyPool(random, 300);
      TreeSet<Key> written = new TreeSet<>();
      for (int round = 0; round < 3; round++) {
        writeRound(engine, random, pool, written, round);
        engine.flush().get(30, TimeUnit.SECONDS);
      }
      List<TableEntry> tables = engine.tables();
      engine.close();
      TableEntry victim = tables.get(random.nextInt(tables.size()));
      fs.flipByte(
          DATA.resolve(victim.fileName()), (long) (random.nextDouble() * victim.fileSizeBytes()));
      LsmEngine reopened = open();
      for (int q = 0; q < 60; q++) {
        long[] r = randomRange(random, pool);
        // Either order: the first one to meet the damage quarantines it for the second.
        boolean keysFirst = random.nextBoolean();
        Object first = keysFirst ? outcomeOfKeys(reopened, r) : outcomeOfCells(reopened, r);
        Object second = keysFirst ? outcomeOfCells(reopened, r) : outcomeOfKeys(reopened, r);
        assertEquals(first, second, "seed " + seed + " " + show(r) + " keys first: " + keysFirst);
        if (first.equals("damaged")) {
          failures++;
        }
      }
      reopened.close();
      for (Path p : fs.list(DATA)) {
        fs.delete(p);
      }
      for (Path p : fs.list(Path.of("/node/cl0"))) {
        fs.delete(p);
      }
    }
    assertTrue(failures > 0, "some scans must meet the damage");
  }

  private static Object outcomeOfKeys(LsmEngine engine, long[] r) {
    try {
      return listKeys(engine, r[0], r[1]);
    } catch (QuarantinedRangeException | CorruptionException e) {
      return "damaged";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static Object outcomeOfCells(LsmEngine engine, long[] r) {
    try {
      return listCells(engine, r[0], r[1]);
    } catch (QuarantinedRangeException | CorruptionException e) {
      return "damaged";
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  static List<Key> listKeys(LsmEngine engine, long from, long to) throws IOException {
    List<Key> keys = new ArrayList<>();
    try (KeyIterator it = engine.scanKeys(from, to)) {
      while (it.hasNext()) {
        keys.add(it.next());
      }
    }
    return keys;
  }

  /** The listing as it was made before issue 22: from the merged cells. */
  static List<Key> listCells(LsmEngine engine, long from, long to) throws IOException {
    List<Key> keys = new ArrayList<>();
    try (CellIterator it = engine.scan(from, to)) {
      while (it.hasNext()) {
        keys.add(it.next().key());
      }
    }
    return keys;
  }

  private static List<Key> inRange(TreeSet<Key> keys, long from, long to) {
    return keys.stream().filter(k -> k.token() >= from && k.token() <= to).toList();
  }

  private void writeRound(
      LsmEngine engine, Random random, List<Key> pool, TreeSet<Key> written, int round)
      throws Exception {
    int writes = 1 + random.nextInt(pool.size());
    List<CompletableFuture<Void>> pending = new ArrayList<>();
    for (int i = 0; i < writes; i++) {
      Key k = pool.get(random.nextInt(pool.size()));
      Cell c =
          switch (random.nextInt(5)) {
            case 0 -> deleted(k, 1, round, random.nextBoolean());
            case 1 -> purge(k, 1, round, clock.get());
            case 2 -> promise(k, 1 + round);
            default -> live(k, 1, round, "v" + "x".repeat(random.nextInt(100)), true);
          };
      pending.add(engine.write(c));
      written.add(k);
    }
    for (CompletableFuture<Void> f : pending) {
      f.get(30, TimeUnit.SECONDS);
    }
  }

  /** Keys of assorted lengths, one a single zero byte. */
  private static List<Key> keyPool(Random random, int size) {
    List<Key> pool = new ArrayList<>();
    pool.add(Key.of(new byte[1]));
    for (int i = 1; i < size; i++) {
      pool.add(Key.of(("k" + random.nextInt(1_000_000)).getBytes(StandardCharsets.UTF_8)));
    }
    return pool;
  }

  /**
   * A range whose bounds are the extremes, a key's token or a neighbour of one (so a bound lands
   * exactly on a key or just misses it), or anything; sometimes one half of a wrapping range (a
   * scan splits one into {@code [MIN, end]} and {@code [start + 1, MAX]}), sometimes empty.
   */
  private static long[] randomRange(Random random, List<Key> pool) {
    long a = bound(random, pool);
    long b = bound(random, pool);
    switch (random.nextInt(6)) {
      case 0 -> {
        return new long[] {Long.MIN_VALUE, a};
      }
      case 1 -> {
        return new long[] {a, Long.MAX_VALUE};
      }
      case 2 -> {
        return new long[] {a, a}; // one token
      }
      default -> {
        return new long[] {Math.min(a, b), Math.max(a, b)};
      }
    }
  }

  private static long bound(Random random, List<Key> pool) {
    long t = pool.get(random.nextInt(pool.size())).token();
    return switch (random.nextInt(6)) {
      case 0 -> random.nextLong();
      case 1 -> t == Long.MIN_VALUE ? t : t - 1;
      case 2 -> t == Long.MAX_VALUE ? t : t + 1;
      case 3 -> random.nextBoolean() ? Long.MIN_VALUE : Long.MAX_VALUE;
      default -> t;
    };
  }

  private static String show(long[] r) {
    return "[" + r[0] + ", " + r[1] + "]";
  }
}
