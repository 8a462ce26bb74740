package io.frsm.bench.quick;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * The quick demo: the paper's mixed workload (NSDI '20 §6: 43% reads, 57% writes) straight on one
 * LSM engine in a temporary directory, with a progress line each second and a summary. Gets and
 * synced puts of 512-byte values over a fixed key set with power-law skew (key index = n·u³ for
 * uniform u: the hottest 1% of keys take about a fifth of the operations). Every put returns only
 * after its commit-log group commit synced, like an acceptor's write.
 *
 * <p>The memtable flushes at 16 MiB (frsm's default is 64 MiB) so that a short run shows flushes
 * and compactions. The directory is deleted at the end.
 */
public final class QuickWorkload {
  private static final int VALUE_BYTES = 512;
  private static final int LOAD_WINDOW = 4096;
  private static final long MIB = 1024L * 1024;

  /**
   * What to run.
   *
   * @param duration measured run time (after loading every key once)
   * @param threads client threads, each doing one operation at a time
   * @param keys distinct keys, all loaded before the run
   * @param getFraction share of gets; the rest are synced puts
   */
  public record Settings(Duration duration, int threads, int keys, double getFraction) {
    public Settings {
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("duration must be > 0, was " + duration);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be >= 1, was " + threads);
      }
      if (keys < 1) {
        throw new IllegalArgumentException("keys must be >= 1, was " + keys);
      }
      if (!(getFraction >= 0 && getFraction <= 1)) {
        throw new IllegalArgumentException("getFraction must be in [0, 1], was " + getFraction);
      }
    }

    /** 10 s, 32 threads, 100k keys, 43% gets / 57% puts. */
    public static Settings paperLike() {
      return new Settings(Duration.ofSeconds(10), 32, 100_000, 0.43);
    }
  }

  /**
   * What a run did. Latencies in nanoseconds, in histograms of {@link #newLatencyHistogram()}'s
   * precision; {@code firstError} null when errors is 0.
   */
  public record Result(
      double seconds,
      Histogram gets,
      Histogram puts,
      long errors,
      Throwable firstError,
      long flushes,
      long compactions,
      int tables) {
    public long operations() {
      return gets.getTotalCount() + puts.getTotalCount();
    }
  }

  /**
   * A histogram of latencies in nanoseconds, any value, to three significant digits: a percentile
   * it reports is the highest value of the bucket that holds it, at most 0.1% above the truth. Not
   * thread-safe: one per client thread, added together at the end.
   */
  static Histogram newLatencyHistogram() {
    return new Histogram(3);
  }

  private final Settings settings;
  private final PrintStream out;
  private final AtomicLong instances = new AtomicLong(1);
  private final LongAdder getCount = new LongAdder();
  private final LongAdder putCount = new LongAdder();
  private final LongAdder errorCount = new LongAdder();
  private final AtomicReference<Throwable> firstError = new AtomicReference<>();

  private QuickWorkload(Settings settings, PrintStream out) {
    this.settings = settings;
    this.out = out;
  }

  /** Runs the workload in a fresh temporary directory and deletes it; prints to {@code out}. */
  public static Result run(Settings settings, PrintStream out) throws IOException {
    Path dir = Files.createTempDirectory("frsm-quick-");
    try {
      return new QuickWorkload(settings, out).runIn(dir);
    } finally {
      deleteRecursively(dir);
    }
  }

  private Result runIn(Path dir) throws IOException {
    MeterRegistry registry = new SimpleMeterRegistry();
    LsmConfig config =
        LsmConfig.builder(dir)
            .commitLogDirectories(List.of(dir.resolve("commitlog")))
            .memtableFlushSizeBytes(16 * MIB)
            .build();
    out.printf(
        Locale.ROOT,
        "frsm quick: LSM engine in %s; %d threads, %d keys, %d-byte values, %.0f%% gets /"
            + " %.0f%% synced puts, %d s%n",
        dir,
        settings.threads(),
        settings.keys(),
        VALUE_BYTES,
        settings.getFraction() * 100,
        (1 - settings.getFraction()) * 100,
        settings.duration().toSeconds());
    try (LsmEngine engine = LsmEngine.open(config, NioFileSystem.INSTANCE, registry)) {
      load(engine);
      Result result = measure(engine, registry);
      printSummary(result, registry);
      return result;
    }
  }

  private void load(LsmEngine engine) {
    long start = System.nanoTime();
    ArrayDeque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
    byte[] value = randomValue(new Random(1));
    for (int i = 0; i < settings.keys(); i++) {
      if (inFlight.size() == LOAD_WINDOW) {
        inFlight.removeFirst().join();
      }
      inFlight.addLast(engine.write(cell(key(i), value)));
    }
    inFlight.forEach(CompletableFuture::join);
    out.printf(
        Locale.ROOT,
        "loaded %d keys in %.1f s%n",
        settings.keys(),
        (System.nanoTime() - start) / 1e9);
  }

  private Result measure(LsmEngine engine, MeterRegistry registry) {
    long startNanos = System.nanoTime();
    long deadline = startNanos + settings.duration().toNanos();
    List<Client> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < settings.threads(); i++) {
      Client c = new Client(engine, deadline, new Random(1000 + i));
      clients.add(c);
      Thread t = new Thread(c, "frsm-quick-client-" + i);
      threads.add(t);
    }
    threads.forEach(Thread::start);
    awaitClients(threads, new ProgressLine(engine, registry, startNanos), startNanos);
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    Histogram gets = newLatencyHistogram();
    Histogram puts = newLatencyHistogram();
    for (Client c : clients) {
      gets.add(c.gets);
      puts.add(c.puts);
    }
    return new Result(
        seconds,
        gets,
        puts,
        errorCount.sum(),
        firstError.get(),
        timerCount(registry, "frsm.lsm.flush.time"),
        timerCount(registry, "frsm.lsm.compaction.time"),
        engine.tables().size());
  }

  /**
   * Waits until every client thread ended (each stops at the deadline), printing the progress line
   * once a second meanwhile.
   */
  private static void awaitClients(List<Thread> threads, ProgressLine line, long startNanos) {
    long second = TimeUnit.SECONDS.toNanos(1);
    long nextLine = startNanos + second;
    boolean interrupted = false;
    for (Thread t : threads) {
      while (t.isAlive()) {
        long left = nextLine - System.nanoTime();
        if (left <= 0) {
          line.print();
          nextLine += second;
          continue;
        }
        try {
          TimeUnit.NANOSECONDS.timedJoin(t, left);
        } catch (InterruptedException e) {
          interrupted = true; // the clients stop by their own deadline
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** One client thread: one operation at a time until the deadline. */
  private final class Client implements Runnable {
    private final LsmEngine engine;
    private final long deadline;
    private final Random random;
    private final byte[] value;
    final Histogram gets = newLatencyHistogram();
    final Histogram puts = newLatencyHistogram();

    Client(LsmEngine engine, long deadline, Random random) {
      this.engine = engine;
      this.deadline = deadline;
      this.random = random;
      this.value = randomValue(random); // shared by this client's puts, never modified
    }

    @Override
    public void run() {
      long now = System.nanoTime();
      while (now < deadline) {
        double u = random.nextDouble();
        byte[] key = key((int) (settings.keys() * u * u * u));
        boolean get = random.nextDouble() < settings.getFraction();
        try {
          if (get) {
            engine.get(Key.wrap(key));
          } else {
            engine.write(cell(key, value)).join();
          }
          long end = System.nanoTime();
          if (get) {
            gets.recordValue(Math.max(0, end - now));
            getCount.increment();
          } else {
            puts.recordValue(Math.max(0, end - now));
            putCount.increment();
          }
          now = end;
        } catch (IOException | RuntimeException e) {
          errorCount.increment();
          firstError.compareAndSet(null, e);
          now = System.nanoTime();
        }
      }
    }
  }

  /** One line a second: the last second's rates and the engine's shape. */
  private final class ProgressLine {
    private final LsmEngine engine;
    private final MeterRegistry registry;
    private final long startNanos;
    private long lastGets;
    private long lastPuts;
    private long lastNanos;

    ProgressLine(LsmEngine engine, MeterRegistry registry, long startNanos) {
      this.engine = engine;
      this.registry = registry;
      this.startNanos = startNanos;
      this.lastNanos = startNanos;
    }

    void print() {
      long now = System.nanoTime();
      long gets = getCount.sum();
      long puts = putCount.sum();
      double dt = (now - lastNanos) / 1e9;
      out.printf(
          Locale.ROOT,
          "[%4.1fs] %8.0f ops/s (gets %7.0f/s, puts %7.0f/s)  errors %d  memtable %5.1f MiB"
              + "  tables %d  flushes %d  compactions %d%n",
          (now - startNanos) / 1e9,
          (gets - lastGets + puts - lastPuts) / dt,
          (gets - lastGets) / dt,
          (puts - lastPuts) / dt,
          errorCount.sum(),
          engine.memtableBytes() / (double) MIB,
          engine.tables().size(),
          timerCount(registry, "frsm.lsm.flush.time"),
          timerCount(registry, "frsm.lsm.compaction.time"));
      lastGets = gets;
      lastPuts = puts;
      lastNanos = now;
    }
  }

  private void printSummary(Result r, MeterRegistry registry) {
    out.printf(Locale.ROOT, "%nsummary over %.1f s:%n", r.seconds());
    out.printf(
        Locale.ROOT,
        "  all   %10d ops  %9.0f ops/s%n",
        r.operations(),
        r.operations() / r.seconds());
    printOp("get", r.gets(), r.seconds());
    printOp("put", r.puts(), r.seconds());
    out.printf(
        Locale.ROOT,
        "  errors %d%s%n",
        r.errors(),
        r.firstError() == null ? "" : " (first: " + r.firstError() + ")");
    out.printf(
        Locale.ROOT,
        "  flushes %d, compactions %d, tables now %d%n",
        r.flushes(),
        r.compactions(),
        r.tables());
    double syncs = 0;
    double syncNanos = 0;
    for (Timer t : registry.find("frsm.commitlog.sync.latency").timers()) {
      syncs += t.count();
      syncNanos += t.totalTime(TimeUnit.NANOSECONDS);
    }
    out.printf(
        Locale.ROOT,
        "  commit-log syncs %.0f, mean fsync %.0f µs, %.1f puts per sync%n",
        syncs,
        syncs == 0 ? 0 : syncNanos / syncs / 1e3,
        syncs == 0 ? 0 : (settings.keys() + r.puts().getTotalCount()) / syncs);
    out.println(
        "  note: on the development machines fsync is absorbed by a host cache (~40 µs for a"
            + " small write on an idle machine), so synced puts here look far better than on a"
            + " real disk, where every sync waits for the device.");
  }

  private void printOp(String name, Histogram h, double seconds) {
    out.printf(
        Locale.ROOT,
        "  %-5s %10d ops  %9.0f ops/s  p50 %8.1f µs  p99 %8.1f µs%n",
        name,
        h.getTotalCount(),
        h.getTotalCount() / seconds,
        h.getValueAtPercentile(50) / 1e3,
        h.getValueAtPercentile(99) / 1e3);
  }

  private static long timerCount(MeterRegistry registry, String name) {
    Timer t = registry.find(name).timer();
    return t == null ? 0 : t.count();
  }

  /** A chosen live cell at a fresh Paxos instance, as an acceptor stores a committed write. */
  private Cell cell(byte[] key, byte[] value) {
    long instance = instances.getAndIncrement();
    return Cell.accepted(
        Key.wrap(key),
        AcceptedValue.live(1, instance, new Ballot(instance, 1, 1), value, true),
        System.currentTimeMillis());
  }

  /** 16 bytes: {@code key-} and twelve digits. */
  private static byte[] key(int index) {
    return String.format(Locale.ROOT, "key-%012d", index).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] randomValue(Random random) {
    byte[] v = new byte[VALUE_BYTES];
    random.nextBytes(v);
    return v;
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + dir, e);
    }
  }
}
