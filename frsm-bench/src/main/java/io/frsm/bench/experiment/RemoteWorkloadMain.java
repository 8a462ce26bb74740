package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmClientBuilder;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.server.workload.WorkloadResult;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The paper's workload (Zipf 0.99, 43% get, 57% read-modify-write CAS, 512-byte values, closed
 * loop) against a running cluster whose nodes are processes of their own ({@code frsm server}),
 * from a JVM of its own: {@code --clients} caller threads spread over {@code --client-instances}
 * independent clients (each its own connections, on the process's shared event loop unless {@code
 * --own-loops}; default one client per caller), a warm-up, then a measured run, printed as one line
 * {@code REMOTE key=value ...}: throughput, p50/p99 (and p99.9 at the end) of gets and of writes (a
 * write's get and CAS together), this JVM's CPU per operation and, given {@code --node-pids}, the
 * nodes' (Linux {@code /proc}, 10 ms ticks): a cost per operation that depends less than throughput
 * on what else the shared machine runs. Used for the TLS A/B of issue 24 ({@code
 * frsm-bench/scripts/tls-ab.sh}). Then one line {@code COUNTS NAME ...} per process (each node,
 * then this client JVM) with its costs per operation of the measured window ({@link ProcessCounts};
 * allocation of the nodes given {@code --node-metrics PORT,...} in the order of {@code
 * --node-pids}) and, given {@code --perf-dir DIR}, its system calls by kind ({@link SyscallCounts};
 * perf's raw output in DIR). {@code --own-loops}: each client on network threads of its own instead
 * of the process's shared ones.
 *
 * <p>{@code --zookeeper HOST:PORT[,...]} runs the same workload against a ZooKeeper ensemble
 * instead ({@link ZooKeeperKvClient}): each independent client is one session, client i on server i
 * mod n; reads are sync + getData (linearizable) unless {@code --zk-reads plain} (getData from the
 * session's server: a labelled extra, not the comparison's main line). {@code --node-pids} then
 * names the ZooKeeper servers' pids (their CPU per operation); {@code --node-metrics} does not
 * apply. Issue 26's like-for-like comparison ({@code frsm-bench/scripts/peers-ab.sh}).
 *
 * <p>{@code --preload N} first writes N keys with 512-byte values from the {@code --clients}
 * callers in parallel ({@link Preload}: keys below {@code --keys} are the workload's own, the rest
 * {@code pre-0000000042} and so on, the same length and never drawn by the workload, so the tables
 * grow while the measured key set stays the same; "not executed" retried, an unknown outcome fenced
 * and created again if absent), with progress on stderr and one line {@code PRELOAD keys=...
 * seconds=... created=... existed=... unknown=... failed=...} on stdout; then the warm-up. {@code
 * --warmup-at EPOCH_MS}: the warm-up begins no earlier than then (the client idles after the
 * preload until that wall-clock time), so that a harness can place the measured window against
 * something that starts at a fixed time after the nodes, such as their scrub ({@code
 * lsm.scrubStartDelay}), whatever the preload took. Given {@code --node-metrics}, one line {@code
 * SCRUB bytes_in_window=N1,N2,.. bytes_before=N1,N2,..} gives each node's {@code
 * frsm_lsm_scrub_bytes_total} over the measured window and before it (-1: unreadable), so a run
 * shows whether the background scrub ran while it was measured (issue 23's node-level figure,
 * {@code frsm-bench/scripts/scrub-ab.sh}), and {@code compaction_read_in_window=N1,N2,..}: the
 * bytes compactions read meanwhile.
 *
 * <pre>{@code
 * java -cp frsm-bench/target/frsm-bench.jar io.frsm.bench.experiment.RemoteWorkloadMain \
 *     --seeds 127.0.0.1:P1,127.0.0.1:P2 --cluster ID (--insecure | --ca F --cert F --key F) \
 *     --clients 64 [--client-instances 64] [--preload 1000000] --warmup 20 --seconds 20 \
 *     --keys 100000
 * }</pre>
 */
public final class RemoteWorkloadMain {
  private RemoteWorkloadMain() {}

  public static void main(String[] args) throws Exception {
    String seeds = null;
    String cluster = "frsm";
    int clients = 64;
    int instances = -1;
    int warmup = 20;
    int seconds = 20;
    long keys = 100_000;
    long preload = 0;
    long warmupAt = 0;
    Path ca = null;
    Path cert = null;
    Path key = null;
    boolean insecure = false;
    List<Long> nodePids = new ArrayList<>();
    List<Integer> nodeMetrics = new ArrayList<>();
    Path perfDir = null;
    boolean ownLoops = false;
    List<String> zookeeper = new ArrayList<>();
    boolean zkSync = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seeds" -> seeds = args[++i];
        case "--cluster" -> cluster = args[++i];
        case "--clients" -> clients = Integer.parseInt(args[++i]);
        case "--client-instances" -> instances = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--keys" -> keys = Long.parseLong(args[++i]);
        case "--preload" -> preload = Long.parseLong(args[++i]);
        case "--warmup-at" -> warmupAt = Long.parseLong(args[++i]);
        case "--ca" -> ca = Path.of(args[++i]);
        case "--cert" -> cert = Path.of(args[++i]);
        case "--key" -> key = Path.of(args[++i]);
        case "--insecure" -> insecure = true;
        case "--node-pids" -> {
          for (String pid : args[++i].split(",")) {
            nodePids.add(Long.parseLong(pid.trim()));
          }
        }
        case "--node-metrics" -> {
          for (String port : args[++i].split(",")) {
            nodeMetrics.add(Integer.parseInt(port.trim()));
          }
        }
        case "--perf-dir" -> perfDir = Path.of(args[++i]);
        case "--own-loops" -> ownLoops = true;
        case "--zookeeper" -> zookeeper = List.of(args[++i].split(","));
        case "--zk-reads" -> zkSync = zkReadsSync(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (zookeeper.isEmpty()
        && (seeds == null || insecure == (ca != null && cert != null && key != null))) {
      throw new IllegalArgumentException(
          "give --seeds HOST:PORT[,...] and either --ca F --cert F --key F or --insecure,"
              + " or --zookeeper HOST:PORT[,...]");
    }
    if (instances < 1 || instances > clients) {
      instances = clients;
    }
    List<FrsmClient> all = new ArrayList<>();
    try {
      for (int i = 0; i < instances; i++) {
        if (!zookeeper.isEmpty()) {
          // One session per independent client, the sessions spread over the servers in turn.
          all.add(
              ZooKeeperKvClient.connect(List.of(zookeeper.get(i % zookeeper.size())), 1, zkSync));
          continue;
        }
        FrsmClientBuilder b =
            FrsmClient.builder().seeds(seeds).clusterId(cluster).shareEventLoops(!ownLoops);
        all.add((insecure ? b.insecure() : b.tls(ca, cert, key)).build());
      }
      FrsmClient spread = new PerThreadClients(all);
      if (preload > 0) {
        Preload.Result p = Preload.run(spread, preload, keys, clients, System.err::println);
        System.out.println(
            String.format(
                Locale.ROOT,
                "PRELOAD keys=%d seconds=%.1f created=%d existed=%d unknown=%d failed=%d",
                p.keys(),
                p.seconds(),
                p.created(),
                p.existed(),
                p.unknown(),
                p.failed()));
      }
      long idle = warmupAt - System.currentTimeMillis();
      if (idle > 0) {
        System.err.println("idle " + idle + " ms until --warmup-at");
        Thread.sleep(idle); // a deliberate pause to a wall-clock time, not a wait for a condition
      }
      WorkloadSpec warm = WorkloadSpec.paper(keys, clients, Duration.ofSeconds(warmup));
      // The warm-up's second-by-second throughput goes to stderr: how long a fresh cluster takes to
      // reach its steady state (issue 26 point 5).
      new WorkloadRunner(spread, warm, line -> System.err.println("warm-up " + line)).run();
      com.sun.management.OperatingSystemMXBean os =
          (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
      long cpu0 = os.getProcessCpuTime();
      long nodeTicks0 = ticks(nodePids);
      List<Long> pids = new ArrayList<>(nodePids);
      pids.add(ProcessHandle.current().pid());
      List<SyscallCounts> syscalls = new ArrayList<>();
      if (perfDir != null) {
        java.nio.file.Files.createDirectories(perfDir);
        for (int i = 0; i < pids.size(); i++) {
          syscalls.add(
              SyscallCounts.start(
                  pids.get(i), seconds, perfDir.resolve(name(i, nodePids) + ".perf")));
        }
      }
      List<ProcessCounts> before = counts(pids, nodeMetrics);
      long[] scrubBefore = nodeCounter(nodeMetrics, SCRUB_BYTES);
      long[] compactedBefore = nodeCounter(nodeMetrics, COMPACTION_READ_BYTES);
      WorkloadResult r =
          new WorkloadRunner(
                  spread, WorkloadSpec.paper(keys, clients, Duration.ofSeconds(seconds)), l -> {})
              .run();
      long[] scrubAfter = nodeCounter(nodeMetrics, SCRUB_BYTES);
      long[] compactedAfter = nodeCounter(nodeMetrics, COMPACTION_READ_BYTES);
      long cpu = os.getProcessCpuTime() - cpu0;
      long nodeTicks = ticks(nodePids) - nodeTicks0;
      List<ProcessCounts> after = counts(pids, nodeMetrics);
      System.out.println(
          String.format(
              Locale.ROOT,
              "REMOTE clients=%d instances=%d ops=%d ops_per_s=%.0f get_p50_us=%.0f"
                  + " get_p99_us=%.0f cas_p50_us=%.0f cas_p99_us=%.0f cas_mismatches=%d"
                  + " unknown=%d errors=%d client_cpu_us_per_op=%.1f nodes_cpu_us_per_op=%.1f"
                  + " get_p999_us=%.0f cas_p999_us=%.0f",
              clients,
              instances,
              r.totalOperations(),
              r.opsPerSecond(),
              r.latencyMicros("get", 50),
              r.latencyMicros("get", 99),
              r.latencyMicros("cas", 50),
              r.latencyMicros("cas", 99),
              r.casMismatches(),
              r.outcomeUnknown(),
              r.errors(),
              cpu / 1_000.0 / Math.max(1, r.totalOperations()),
              nodePids.isEmpty()
                  ? Double.NaN
                  : nodeTicks * 10_000.0 / Math.max(1, r.totalOperations()),
              r.latencyMicros("get", 99.9),
              r.latencyMicros("cas", 99.9)));
      if (!nodeMetrics.isEmpty()) {
        System.out.println(
            "SCRUB bytes_in_window="
                + deltas(scrubBefore, scrubAfter)
                + " bytes_before="
                + java.util.Arrays.stream(scrubBefore)
                    .mapToObj(Long::toString)
                    .collect(java.util.stream.Collectors.joining(","))
                + " compaction_read_in_window="
                + deltas(compactedBefore, compactedAfter));
      }
      // Per process, per operation of the measured window (ProcessCounts, SyscallCounts).
      for (int i = 0; i < pids.size(); i++) {
        String line =
            after.get(i).perOperation(name(i, nodePids), before.get(i), r.totalOperations());
        if (i < syscalls.size() && syscalls.get(i) != null) {
          line += " " + syscalls.get(i).perOperation(r.totalOperations());
        }
        System.out.println("COUNTS " + line.trim());
      }
    } finally {
      for (FrsmClient c : all) {
        c.close();
      }
    }
  }

  /**
   * {@code sync}: sync + getData, linearizable (the comparison's main line); {@code plain}:
   * getData.
   */
  private static boolean zkReadsSync(String mode) {
    return switch (mode) {
      case "sync" -> true;
      case "plain" -> false;
      default -> throw new IllegalArgumentException("--zk-reads is sync or plain, was " + mode);
    };
  }

  /** The scrub's counter: data block bytes read and verified. */
  private static final String SCRUB_BYTES = "frsm_lsm_scrub_bytes_total";

  /** Bytes compactions read (they compete with the scrub and the workload for the disk). */
  private static final String COMPACTION_READ_BYTES = "frsm_lsm_compaction_bytes_read_bytes_total";

  /** Each node's counter {@code name}, -1 where it cannot be read. */
  private static long[] nodeCounter(List<Integer> nodeMetrics, String name) {
    return nodeMetrics.stream().mapToLong(port -> ProcessCounts.nodeMetric(port, name)).toArray();
  }

  /** "after - before" per node, comma-separated; -1 where either is unknown. */
  private static String deltas(long[] before, long[] after) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < before.length; i++) {
      boolean known = before[i] >= 0 && after[i] >= 0;
      out.append(i == 0 ? "" : ",").append(known ? after[i] - before[i] : -1);
    }
    return out.toString();
  }

  /** "node1".. for the nodes' pids in order, "client" for this JVM (last). */
  private static String name(int index, List<Long> nodePids) {
    return index < nodePids.size() ? "node" + (index + 1) : "client";
  }

  /**
   * Counts of each process (the nodes, then this JVM), with the nodes' allocation read from their
   * metrics ports when given in the same order.
   */
  private static List<ProcessCounts> counts(List<Long> pids, List<Integer> nodeMetrics)
      throws java.io.IOException {
    List<ProcessCounts> counts = new ArrayList<>();
    for (int i = 0; i < pids.size(); i++) {
      boolean self = i == pids.size() - 1;
      long allocated =
          self
              ? ProcessCounts.ownAllocatedBytes()
              : i < nodeMetrics.size() ? ProcessCounts.nodeAllocatedBytes(nodeMetrics.get(i)) : -1;
      counts.add(ProcessCounts.of(pids.get(i), allocated));
    }
    return counts;
  }

  /**
   * utime + stime of the processes {@code pids} together, in clock ticks of 10 ms ({@code
   * /proc/PID/stat}, Linux); 0 for none.
   */
  private static long ticks(List<Long> pids) throws java.io.IOException {
    long sum = 0;
    for (long pid : pids) {
      String stat = java.nio.file.Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      sum += Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat
    }
    return sum;
  }

  /**
   * Gives each caller thread one of the clients (round robin on first use), so that the workload
   * runner's threads act as independent clients.
   */
  private static final class PerThreadClients implements FrsmClient {
    private final List<FrsmClient> clients;
    private final AtomicInteger next = new AtomicInteger();
    private final ThreadLocal<FrsmClient> mine;

    PerThreadClients(List<FrsmClient> clients) {
      this.clients = List.copyOf(clients);
      this.mine =
          ThreadLocal.withInitial(
              () -> this.clients.get(Math.floorMod(next.getAndIncrement(), this.clients.size())));
    }

    // The blocking calls too: a client may serve them on the caller's thread, not by a join.
    @Override
    public Optional<Versioned> get(byte[] key) {
      return mine.get().get(key);
    }

    @Override
    public Version create(byte[] key, byte[] value) {
      return mine.get().create(key, value);
    }

    @Override
    public Version cas(byte[] key, Version expected, byte[] newValue) {
      return mine.get().cas(key, expected, newValue);
    }

    @Override
    public Optional<Versioned> fence(byte[] key) {
      return mine.get().fence(key);
    }

    @Override
    public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
      return mine.get().getAsync(key);
    }

    @Override
    public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
      return mine.get().createAsync(key, value);
    }

    @Override
    public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
      return mine.get().casAsync(key, expected, newValue);
    }

    @Override
    public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
      return mine.get().deleteAsync(key, expected);
    }

    @Override
    public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
      return mine.get().fenceAsync(key);
    }

    @Override
    public void close() {}
  }
}
