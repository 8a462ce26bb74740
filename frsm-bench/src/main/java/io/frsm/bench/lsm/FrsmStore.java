package io.frsm.bench.lsm;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.sstable.CellIterator;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** {@link BenchStore} on frsm's {@link LsmEngine}: one commit-log stripe under the data dir. */
public final class FrsmStore implements BenchStore {
  /** Writes in flight while loading: enough to fill every group commit. */
  private static final int LOAD_WINDOW = 4096;

  /** Compaction is not rate limited in the benchmarks (1 TiB/s), so it shows its own speed. */
  public static final long UNLIMITED_COMPACTION_BYTES_PER_SECOND = 1L << 40;

  private final LsmEngine engine;
  private final AtomicLong instances = new AtomicLong(1);

  public FrsmStore(LsmEngine engine) {
    this.engine = engine;
  }

  static FrsmStore open(Path dir, StoreOptions options) {
    try {
      return new FrsmStore(
          LsmEngine.open(
              config(dir, options).build(), NioFileSystem.INSTANCE, new SimpleMeterRegistry()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The engine settings for {@code options}: 4 KiB blocks, 10 bloom bits per key, compaction not
   * rate limited, commit log in {@code dir/commitlog}. {@code
   * -Dfrsm.bench.preallocateSegments=false} turns commit-log segment preallocation off and {@code
   * -Dfrsm.bench.commitLogSegmentBytes=N} sets the segment size (for A/B runs: {@code
   * -jvmArgsAppend} in JMH).
   */
  public static LsmConfig.Builder config(Path dir, StoreOptions options) {
    LsmConfig.Builder b =
        LsmConfig.builder(dir)
            .commitLogDirectories(List.of(dir.resolve("commitlog")))
            .sstableBlockSizeBytes(StoreOptions.BLOCK_BYTES)
            .bloomBitsPerKey(StoreOptions.BLOOM_BITS_PER_KEY)
            .blockCacheSizeBytes(options.blockCacheBytes())
            .memtableFlushSizeBytes(options.memtableBytes())
            .compactionThroughputLimitBytesPerSecond(UNLIMITED_COMPACTION_BYTES_PER_SECOND)
            .commitLogPreallocateSegments(
                Boolean.parseBoolean(System.getProperty("frsm.bench.preallocateSegments", "true")));
    String segmentBytes = System.getProperty("frsm.bench.commitLogSegmentBytes");
    if (segmentBytes != null) {
      b.commitLogRotationThresholdBytes(Long.parseLong(segmentBytes));
    }
    if (!options.backgroundCompaction()) {
      b.minorCompactionMinTables(1000).minorCompactionMaxTables(1000);
    }
    if (options.memtableBytes() > 512 * StoreOptions.MIB) {
      // A memtable this large must not be flushed early by the commit log's size limit either.
      b.maxCommitLogSizeOnDiskBytes(4 * options.memtableBytes());
    }
    return b;
  }

  public LsmEngine engine() {
    return engine;
  }

  /**
   * A chosen live cell for {@code key} at a fresh Paxos instance, as a consensus write would store
   * it. Takes ownership of both arrays.
   */
  public Cell cell(byte[] key, byte[] value) {
    long instance = instances.getAndIncrement();
    return Cell.accepted(
        Key.wrap(key),
        AcceptedValue.live(1, instance, new Ballot(instance, 1, 1), value, true),
        System.currentTimeMillis());
  }

  @Override
  public void putSynced(byte[] key, byte[] value) {
    engine.write(cell(key, value)).join();
  }

  @Override
  public void load(long from, long count) {
    ArrayDeque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
    for (long i = from; i < from + count; i++) {
      if (inFlight.size() == LOAD_WINDOW) {
        inFlight.removeFirst().join();
      }
      inFlight.addLast(engine.write(cell(BenchKeys.key(i), BenchKeys.value())));
    }
    inFlight.forEach(CompletableFuture::join);
  }

  @Override
  public byte[] get(byte[] key) {
    try {
      Cell c = engine.get(Key.wrap(key));
      return c == null || c.accepted() == null ? null : c.accepted().valueUnsafe();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public int scan(long start, int approxKeys, long datasetKeys) {
    long width = Long.divideUnsigned(-1L, datasetKeys) * approxKeys;
    long end = start > Long.MAX_VALUE - width ? Long.MAX_VALUE : start + width;
    int n = 0;
    try (CellIterator it = engine.scan(start, end)) {
      while (it.hasNext()) {
        it.next();
        n++;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return n;
  }

  @Override
  public void flush() {
    engine.flush().join();
  }

  @Override
  public void compactAll() {
    engine.compactMajor().join();
  }

  @Override
  public long tableBytes() {
    return engine.tables().stream().mapToLong(TableEntry::fileSizeBytes).sum();
  }

  @Override
  public int tableCount() {
    return engine.tables().size();
  }

  @Override
  public void close() {
    engine.close();
  }
}
