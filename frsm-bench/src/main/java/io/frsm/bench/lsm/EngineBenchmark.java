package io.frsm.bench.lsm;

import java.nio.file.Path;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * What the frsm-beside-RocksDB benchmarks share: one fork with a fixed 4 GiB heap, the {@code
 * engine} parameter (each benchmark runs once per engine), and the store under test in a temporary
 * directory of its own. JMH applies the class annotations and the parameter to every subclass.
 *
 * <p>Subclasses pick the mode and when the store opens and closes (per trial or per iteration) and
 * call {@link #openStore} and {@link #closeStore} from their own {@code @Setup} and
 * {@code @TearDown} methods. This class has none of its own, so the order of setup and teardown
 * steps is the subclass's alone.
 */
@State(Scope.Benchmark)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Xms4g", "-Xmx4g"}) // a fixed heap, as a server runs
public abstract class EngineBenchmark {
  @Param({"frsm", "rocksdb"})
  public String engine;

  /**
   * The store's directory (set by {@link #openStore} or by the subclass); deleted by closeStore.
   */
  protected Path dir;

  /**
   * The store under test (opened by {@link #openStore} or by the subclass); closed by closeStore.
   */
  protected BenchStore store;

  /** Opens {@link #engine} with {@code options} in a fresh directory named {@code dirPrefix...}. */
  protected final void openStore(String dirPrefix, StoreOptions options) {
    dir = TempDirs.create(dirPrefix);
    store = BenchStore.open(engine, dir, options);
  }

  /** Closes the store and deletes its directory. */
  protected final void closeStore() {
    store.close();
    TempDirs.deleteRecursively(dir);
  }
}
