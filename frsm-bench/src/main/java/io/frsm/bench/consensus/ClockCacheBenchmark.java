package io.frsm.bench.consensus;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.store.CachingCellStore;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The clock cache's hit path: {@code CachingCellStore.get} on {@code keys} keys that all fit
 * (64-byte values, 1 GiB bound), in front of a map that is never read after warm-up, visited in a
 * shuffled order: 10,000 keys stay in the CPU caches, 1,000,000 do not. Also the update path a
 * completed persist takes ({@code persisted}).
 *
 * <p>Run: {@code ./mvnw -pl frsm-bench -am package -DskipTests && java -jar
 * frsm-bench/target/frsm-bench.jar jmh ClockCacheBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms4g", "-Xmx4g"}) // a fixed heap, as a server runs
public class ClockCacheBenchmark {
  @Param({"10000", "1000000"})
  public int keyCount;

  private Key[] keys;
  private Cell[] cells;
  private CachingCellStore cache;
  private int next;

  @Setup
  public void setUp() {
    keys = new Key[keyCount];
    cells = new Cell[keyCount];
    Map<Key, Cell> store = new HashMap<>();
    for (int i = 0; i < keyCount; i++) {
      keys[i] = Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
      cells[i] =
          Cell.accepted(
              keys[i], AcceptedValue.live(1, 0, new Ballot(1, 1, 1), new byte[64], true), 0);
      store.put(keys[i], cells[i]);
    }
    cache = new CachingCellStore(store::get, 1L << 30);
    for (Key k : keys) {
      cache.get(k);
    }
    // Visit in a shuffled order, so that neighbouring calls do not share cache lines by accident.
    Random random = new Random(42);
    for (int i = keyCount - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      Key k = keys[i];
      keys[i] = keys[j];
      keys[j] = k;
      Cell c = cells[i];
      cells[i] = cells[j];
      cells[j] = c;
    }
  }

  @Benchmark
  public Cell hit() {
    return cache.get(keys[next++ % keyCount]);
  }

  @Benchmark
  public void persisted() {
    int i = next++ % keyCount;
    cache.persisted(cells[i]);
  }
}
