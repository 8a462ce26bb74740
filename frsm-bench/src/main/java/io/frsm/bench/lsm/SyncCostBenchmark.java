package io.frsm.bench.lsm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What one commit-log group commit costs the file system: append {@code batchBytes}, then {@code
 * fdatasync} ({@code FileChannel.force(false)}), as a stripe's writer does — into a file that grows
 * with every write ({@code growing}, how segments are written today) or into one whose blocks were
 * written with zeros and synced beforehand ({@code prezeroed}). A sync of a growing file must also
 * persist the new size and the newly allocated blocks (a journal commit on ext4); an overwrite of
 * allocated blocks persists data only. Wall time per sync is JMH's score; the writer thread's CPU
 * per sync (user + kernel) is printed after each iteration, since on a virtual disk a sync costs
 * CPU as well as time.
 *
 * <pre>
 * java -jar frsm-bench/target/frsm-bench.jar jmh SyncCostBenchmark
 * </pre>
 *
 * Each iteration writes a fresh file in the system's temp directory (put it on the disk a node
 * would use with {@code -Djava.io.tmpdir=...} in {@code -jvmArgsAppend}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1)
public class SyncCostBenchmark {
  /** Larger than an iteration ever writes (3 s of syncs of at most 64 KiB at ≥ 20 µs each). */
  private static final long FILE_BYTES = 512L * 1024 * 1024;

  @Param({"growing", "prezeroed"})
  public String file;

  /** One group commit: about four 600-byte records, as measured under load. */
  @Param({"2048"})
  public int batchBytes;

  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private Path dir;
  private FileChannel channel;
  private ByteBuffer batch;
  private long position;
  private long syncs;
  private long cpuAtStart;

  @Setup(Level.Iteration)
  public void openFile() throws IOException {
    dir = TempDirs.create("frsm-bench-sync-");
    channel =
        FileChannel.open(
            dir.resolve("segment"),
            StandardOpenOption.CREATE_NEW,
            StandardOpenOption.READ,
            StandardOpenOption.WRITE);
    if (file.equals("prezeroed")) {
      ByteBuffer zeros = ByteBuffer.allocateDirect(1 << 20);
      for (long at = 0; at < FILE_BYTES; at += zeros.capacity()) {
        zeros.clear();
        while (zeros.hasRemaining()) {
          channel.write(zeros, at + zeros.position());
        }
      }
      channel.force(true);
    } else if (!file.equals("growing")) {
      throw new IllegalArgumentException("file is growing or prezeroed, was " + file);
    }
    batch = ByteBuffer.allocateDirect(batchBytes);
    for (int i = 0; i < batchBytes; i++) {
      batch.put(i, (byte) (i * 31 + 7)); // not zeros: the overwrite must change every byte
    }
    position = 0;
    syncs = 0;
    cpuAtStart = threads.getCurrentThreadCpuTime();
  }

  @Benchmark
  public void appendAndSync() throws IOException {
    if (position + batchBytes > FILE_BYTES) {
      throw new IllegalStateException("the iteration wrote past " + FILE_BYTES + " bytes");
    }
    batch.clear();
    while (batch.hasRemaining()) {
      position += channel.write(batch, position);
    }
    channel.force(false);
    syncs++;
  }

  @TearDown(Level.Iteration)
  public void closeFile() {
    long cpu = threads.getCurrentThreadCpuTime() - cpuAtStart;
    System.out.printf(
        "%n  %s: %d syncs, writer CPU %.1f µs per sync%n", file, syncs, cpu / 1e3 / syncs);
    try {
      channel.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    TempDirs.deleteRecursively(dir);
  }
}
