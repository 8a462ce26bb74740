package io.frsm.bench.crsm;

import io.frsm.api.FrsmClient;
import io.frsm.server.workload.WorkloadResult;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.stream.Stream;

/**
 * The paper's workload ({@link WorkloadSpec#paper}: 43% gets, 57% CAS as read-modify-write,
 * 512-byte values, Zipf 0.99 or uniform) run by frsm's own {@link WorkloadRunner} against a fresh
 * {@link CrsmCluster} for each batch size, printing throughput and latency percentiles.
 *
 * <pre>
 * java -cp frsm-bench/target/frsm-bench.jar io.frsm.bench.crsm.CrsmBenchmark \
 *     [--seconds=10] [--clients=64] [--keys=100000] [--batches=1,64,128] [--inflight=4] [--uniform]
 *     [--network=netty|in-jvm] [--transport-threads=2] [--warmup=30]
 * </pre>
 *
 * The default network is Netty (frsm's transport): the one to compare frsm with.
 */
public final class CrsmBenchmark {

  /**
   * What to run.
   *
   * @param maxSlotsInFlight per shard leader (see {@link CrsmConfig#maxSlotsInFlight()})
   * @param transportThreads Netty event loops per node (see {@link CrsmCluster#start(Path,
   *     CrsmConfig, Network, int)})
   * @param warmup an unrecorded run on a fresh cluster first (JIT warm-up); zero for none
   */
  public record Settings(
      Duration duration,
      int clients,
      long keys,
      List<Integer> batchSizes,
      int maxSlotsInFlight,
      boolean uniform,
      Network network,
      int transportThreads,
      Duration warmup) {
    public Settings {
      batchSizes = List.copyOf(batchSizes);
      if (batchSizes.isEmpty()) {
        throw new IllegalArgumentException("at least one batch size");
      }
      Objects.requireNonNull(network, "network");
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warmup must be >= 0");
      }
    }

    /** Over Netty with {@link CrsmCluster#defaultTransportThreads()}, 30 s of warm-up. */
    public Settings(
        Duration duration,
        int clients,
        long keys,
        List<Integer> batchSizes,
        int maxSlotsInFlight,
        boolean uniform) {
      this(
          duration,
          clients,
          keys,
          batchSizes,
          maxSlotsInFlight,
          uniform,
          Network.NETTY,
          CrsmCluster.defaultTransportThreads(),
          Duration.ofSeconds(30));
    }

    public static Settings paperDefaults() {
      return new Settings(Duration.ofSeconds(10), 64, 100_000, List.of(1, 64, 128), 4, false);
    }

    WorkloadSpec spec(Duration length) {
      WorkloadSpec paper = WorkloadSpec.paper(keys, clients, length);
      return uniform ? paper.uniform() : paper;
    }
  }

  /** One batch size's outcome. */
  public record Row(int maxBatch, WorkloadResult result, double meanBatch, long largestBatch) {}

  private CrsmBenchmark() {}

  public static List<Row> run(Settings settings, PrintStream out)
      throws IOException, InterruptedException {
    if (!settings.warmup().isZero()) {
      // The first runs of a JVM are slow (JIT compilation of Netty, protobuf, the LSM and the
      // core, heap sizing): on the loaded 2-core VM five back-to-back 10 s runs at batch 128
      // gave 36, 1235, 2834, 5379, 5297 ops/s. Without this, the first batch size measured
      // pays for it and the order of the batch sizes decides the ranking.
      out.printf(Locale.ROOT, "warm-up, not recorded: %d s%n", settings.warmup().toSeconds());
      runOne(settings, settings.batchSizes().get(0), settings.spec(settings.warmup()), out);
    }
    List<Row> rows = new ArrayList<>();
    for (int batch : settings.batchSizes()) {
      rows.add(runOne(settings, batch, settings.spec(settings.duration()), out));
    }
    out.println();
    out.println(
        "| cRSM batch | ops/s | get p50 µs | get p99 µs | cas p50 µs | cas p99 µs | mean batch |");
    out.println("|---|---|---|---|---|---|---|");
    for (Row row : rows) {
      WorkloadResult r = row.result();
      out.printf(
          Locale.ROOT,
          "| %d | %.0f | %.0f | %.0f | %.0f | %.0f | %.1f |%n",
          row.maxBatch(),
          r.opsPerSecond(),
          r.latencyMicros("get", 50),
          r.latencyMicros("get", 99),
          r.latencyMicros("cas", 50),
          r.latencyMicros("cas", 99),
          row.meanBatch());
    }
    return rows;
  }

  /** One fresh cluster at {@code batch}, the workload {@code spec} against it. */
  private static Row runOne(Settings settings, int batch, WorkloadSpec spec, PrintStream out)
      throws IOException, InterruptedException {
    CrsmConfig config =
        CrsmConfig.benchmark(batch).withMaxSlotsInFlight(settings.maxSlotsInFlight());
    Path dir = Files.createTempDirectory("frsm-crsm-bench");
    try (CrsmCluster cluster =
            CrsmCluster.start(dir, config, settings.network(), settings.transportThreads());
        FrsmClient client = cluster.client()) {
      out.printf(
          Locale.ROOT,
          "cRSM batch=%d inflight=%d network=%s threads=%d %s: %d clients, %d keys, %d s%n",
          batch,
          settings.maxSlotsInFlight(),
          settings.network(),
          settings.transportThreads(),
          settings.uniform() ? "uniform" : "zipf 0.99",
          settings.clients(),
          settings.keys(),
          spec.duration().toSeconds());
      WorkloadResult r = new WorkloadRunner(client, spec, out::println).run();
      BatchMetrics m = cluster.metrics();
      out.print(r.summary());
      out.printf(
          Locale.ROOT,
          "  batches: %d slots, mean %.1f commands, largest %d; transport dropped %d messages%n",
          m.slots(),
          m.meanBatch(),
          m.largestBatch(),
          cluster.droppedMessages());
      return new Row(batch, r, m.meanBatch(), m.largestBatch());
    } finally {
      deleteRecursively(dir);
    }
  }

  public static void main(String[] args) throws Exception {
    Settings d = Settings.paperDefaults();
    long seconds = d.duration().toSeconds();
    int clients = d.clients();
    long keys = d.keys();
    List<Integer> batches = d.batchSizes();
    int inflight = d.maxSlotsInFlight();
    boolean uniform = false;
    Network network = d.network();
    int transportThreads = d.transportThreads();
    long warmupSeconds = d.warmup().toSeconds();
    for (String a : args) {
      String value = a.contains("=") ? a.substring(a.indexOf('=') + 1) : "";
      if (a.startsWith("--seconds=")) {
        seconds = Long.parseLong(value);
      } else if (a.startsWith("--clients=")) {
        clients = Integer.parseInt(value);
      } else if (a.startsWith("--keys=")) {
        keys = Long.parseLong(value);
      } else if (a.startsWith("--batches=")) {
        batches = Stream.of(value.split(",")).map(Integer::valueOf).toList();
      } else if (a.startsWith("--inflight=")) {
        inflight = Integer.parseInt(value);
      } else if (a.equals("--uniform")) {
        uniform = true;
      } else if (a.equals("--network=netty")) {
        network = Network.NETTY;
      } else if (a.equals("--network=in-jvm")) {
        network = Network.IN_JVM;
      } else if (a.startsWith("--transport-threads=")) {
        transportThreads = Integer.parseInt(value);
      } else if (a.startsWith("--warmup=")) {
        warmupSeconds = Long.parseLong(value);
      } else {
        System.err.println(
            "usage: CrsmBenchmark [--seconds=10] [--clients=64] [--keys=100000]"
                + " [--batches=1,64,128] [--inflight=4] [--uniform]"
                + " [--network=netty|in-jvm] [--transport-threads=2] [--warmup=30]");
        System.exit(2);
      }
    }
    List<Row> rows =
        run(
            new Settings(
                Duration.ofSeconds(seconds),
                clients,
                keys,
                batches,
                inflight,
                uniform,
                network,
                transportThreads,
                Duration.ofSeconds(warmupSeconds)),
            System.out);
    boolean errors = rows.stream().anyMatch(r -> r.result().errors() > 0);
    System.exit(errors ? 1 : 0);
  }

  private static void deleteRecursively(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.delete(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
