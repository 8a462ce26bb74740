package io.frsm.bench.consensus;

import io.frsm.consensus.storage.CachingCellStore;
import io.frsm.lsm.cell.AcceptedValue;
import io.frsm.lsm.cell.Ballot;
import io.frsm.lsm.cell.Cell;
import io.frsm.lsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The clock cache's hit path: {@code CachingCellStore.get} on 10,000 keys that all fit (64-byte
 * values, 64 MB bound), in front of a map that is never read after warm-up. Also the update path a
 * completed persist takes ({@code persisted}).
 *
 * <p>Run: {@code ./mvnw -pl frsm-bench -am package -DskipTests && java -jar
 * frsm-bench/target/benchmarks.jar ClockCacheBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class ClockCacheBenchmark {
  private static final int KEYS = 10_000;

  private final Key[] keys = new Key[KEYS];
  private final Cell[] cells = new Cell[KEYS];
  private CachingCellStore cache;
  private int next;

  @Setup
  public void setUp() {
    Map<Key, Cell> store = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      keys[i] = Key.of(("key-" + i).getBytes(StandardCharsets.US_ASCII));
      cells[i] =
          Cell.accepted(
              keys[i], AcceptedValue.live(1, 0, new Ballot(1, 1, 1), new byte[64], true), 0);
      store.put(keys[i], cells[i]);
    }
    cache = new CachingCellStore(store::get, 64L << 20);
    for (Key k : keys) {
      cache.get(k);
    }
  }

  @Benchmark
  public Cell hit() {
    return cache.get(keys[next++ % KEYS]);
  }

  @Benchmark
  public void persisted() {
    int i = next++ % KEYS;
    cache.persisted(cells[i]);
  }
}
