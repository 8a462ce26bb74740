package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmClientBuilder;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * The client's CPU cost, measured from outside the cluster (issue 25, "Performance"): run in a JVM
 * of its own against a running cluster ({@code frsm local}), it drives the paper's mix (43% get,
 * 57% CAS after a get, 512-byte values) over {@code --keys} uniform keys from {@code --threads}
 * caller threads through one shared seed client for {@code --seconds} after a warm-up of the same
 * length, and prints one line: ops/s, this JVM's CPU per operation (the client, its callers and
 * everything a client JVM runs: JIT, GC), the part of it the kernel spent ({@code /proc/self/stat}
 * system time: socket calls, futex wake-ups), its threads' context switches per operation (all, and
 * those that were preemptions), the heap bytes this JVM allocated per operation, and, given the
 * cluster's pid, the cluster JVM's CPU per operation, the client's CPU over the cluster's, and the
 * client's share of the total (client over client plus cluster).
 *
 * <pre>{@code
 * java -cp frsm-bench/target/frsm-bench.jar io.frsm.bench.experiment.ClientCpuMain \
 *     --seeds 127.0.0.1:PORT --cluster local --ca D/ca.pem --cert D/client-local-admin.pem \
 *     --key D/client-local-admin-key.pem --threads 64 --seconds 20 [--cluster-pid PID]
 * }</pre>
 *
 * <p>The certificate is the one {@code frsm local} printed (mutual TLS on every connection, as in
 * production); {@code --insecure} instead for a cluster running plaintext.
 *
 * <p>{@code --io-threads N}: the client's network threads (default: the builder's).
 *
 * <p>{@code --modes M[,M...]} (default {@code blocking}; {@code --async} is {@code --modes async})
 * and {@code --rounds R}: after one warm-up per mode, R rounds of one window per mode in the order
 * given (A B A B ...), a line each. {@code blocking}: {@code --threads} caller threads on the sync
 * methods. {@code async}: as many logical callers, no thread each, every one chaining its next
 * operation on the completion of the one before ({@link AsyncCallers}), on the client's callback
 * pool. {@code async-direct}: the same on a second client built with {@code
 * callbackExecutor(Runnable::run)}, whose futures complete on its network thread.
 *
 * <p>{@code --zookeeper HOST:PORT} instead of {@code --seeds} builds the client from the cluster's
 * ZooKeeper; with this class on the class path of an older {@code frsm.jar} (before issue 25) that
 * is the old thin client, for a new-versus-old comparison against the same cluster.
 *
 * <p>Linux only for the cluster's CPU ({@code /proc/PID/stat}, clock ticks of 10 ms).
 */
public final class ClientCpuMain {
  private ClientCpuMain() {}

  public static void main(String[] args) throws Exception {
    String seeds = null;
    String zookeeper = null;
    String cluster = "local";
    int threads = 1;
    int seconds = 10;
    int keys = 10_000;
    int ioThreads = 0;
    long clusterPid = -1;
    Path ca = null;
    Path cert = null;
    Path key = null;
    boolean insecure = false;
    Path zookeeperCredential = null;
    List<Mode> modes = List.of(Mode.BLOCKING);
    int rounds = 1;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--seeds" -> seeds = args[++i];
        case "--zookeeper" -> zookeeper = args[++i];
        case "--cluster" -> cluster = args[++i];
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--io-threads" -> ioThreads = Integer.parseInt(args[++i]);
        case "--cluster-pid" -> clusterPid = Long.parseLong(args[++i]);
        case "--ca" -> ca = Path.of(args[++i]);
        case "--cert" -> cert = Path.of(args[++i]);
        case "--key" -> key = Path.of(args[++i]);
        case "--insecure" -> insecure = true;
        case "--zookeeper-credential" -> zookeeperCredential = Path.of(args[++i]);
        case "--async" -> modes = List.of(Mode.ASYNC);
        case "--modes" -> modes = Mode.parse(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if ((seeds == null) == (zookeeper == null)) {
      throw new IllegalArgumentException("give --seeds HOST:PORT[,...] or --zookeeper HOST:PORT");
    }
    // --zookeeper: whatever client the class path's provider builds from a ZooKeeper string (so
    // the same program measures an older frsm.jar's ZooKeeper-routed thin client).
    if (insecure == (ca != null && cert != null && key != null)) {
      throw new IllegalArgumentException(
          "give --ca FILE --cert FILE --key FILE (the client certificate 'frsm local' printed) or"
              + " --insecure");
    }
    FrsmClientBuilder builder = FrsmClient.builder().clusterId(cluster);
    if (insecure) {
      builder.insecure();
    } else {
      builder.tls(ca, cert, key);
    }
    if (zookeeperCredential != null) {
      builder.zookeeperCredential(zookeeperCredential);
    }
    if (ioThreads > 0) {
      builder.ioThreads(ioThreads);
    }
    if (seeds != null) {
      builder.seeds(seeds);
    } else {
      builder.zookeeper(zookeeper);
    }
    // One client per callback choice, each built once and used only by its modes' windows.
    Map<Boolean, FrsmClient> clients = new HashMap<>();
    try {
      for (Mode mode : modes) {
        if (!clients.containsKey(mode.directCallbacks)) {
          if (mode.directCallbacks) {
            builder.callbackExecutor(Runnable::run);
          }
          clients.put(mode.directCallbacks, builder.build());
        }
      }
      for (Mode mode : modes) {
        // warm-up: JIT, connections, keys created
        mode.run(clients.get(mode.directCallbacks), threads, seconds, keys);
      }
      // Modes alternate within a round (A B A B ...), so a change in the shared machine's load
      // falls on each of them alike.
      for (int round = 1; round <= rounds; round++) {
        for (Mode mode : modes) {
          measure(
              clients.get(mode.directCallbacks), mode, round, threads, seconds, keys, clusterPid);
        }
      }
    } finally {
      clients.values().forEach(FrsmClient::close);
    }
  }

  /** One measured window of {@code mode}: one CLIENTCPU line. */
  private static void measure(
      FrsmClient client, Mode mode, int round, int threads, int seconds, int keys, long clusterPid)
      throws Exception {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    String load = loadAverage();
    long cpu0 = os.getProcessCpuTime();
    long systemTicks0 = systemTicks("self");
    Map<String, long[]> switches0 = threadSwitches();
    long allocated0 = allocatedBytes();
    long clusterTicks0 = clusterPid > 0 ? ticks(clusterPid) : -1;
    long wall0 = System.nanoTime();
    long ops = mode.run(client, threads, seconds, keys);
    long wall = System.nanoTime() - wall0;
    long cpu = os.getProcessCpuTime() - cpu0;
    long systemTicks = systemTicks("self") - systemTicks0;
    long[] switches = switchesOver(switches0, threadSwitches());
    long allocated = allocatedBytes() - allocated0;
    double clientUsPerOp = cpu / 1_000.0 / ops;
    double clientSystemUsPerOp = systemTicks * 10_000.0 / ops;
    String clusterPart = "";
    if (clusterPid > 0) {
      double clusterUsPerOp = (ticks(clusterPid) - clusterTicks0) * 10_000.0 / ops;
      clusterPart =
          String.format(
              " cluster_cpu_us_per_op=%.1f client_over_cluster=%.2f client_share_of_total=%.2f",
              clusterUsPerOp,
              clientUsPerOp / clusterUsPerOp,
              clientUsPerOp / (clientUsPerOp + clusterUsPerOp));
    }
    System.out.printf(
        "CLIENTCPU mode=%s round=%d load=%s threads=%d ops=%d ops_per_s=%.0f"
            + " client_cpu_us_per_op=%.1f client_system_us_per_op=%.1f"
            + " client_alloc_bytes_per_op=%.0f client_switches_per_op=%.2f"
            + " client_preemptions_per_op=%.2f client_cpus_busy=%.2f%s%n",
        mode.label,
        round,
        load,
        threads,
        ops,
        ops * 1e9 / wall,
        clientUsPerOp,
        clientSystemUsPerOp,
        allocated < 0 ? Double.NaN : (double) allocated / ops,
        (double) (switches[0] + switches[1]) / ops,
        (double) switches[1] / ops,
        (double) cpu / wall,
        clusterPart);
  }

  /**
   * How the callers drive the client. {@link #BLOCKING}: one thread per caller, each calling the
   * sync methods. {@link #ASYNC}: the same callers as logical chains with no thread of their own:
   * each starts its next operation from the completion of the one before (the get's completion
   * sends the CAS, the CAS's the next get), on whatever thread the client completes the future on;
   * nothing blocks but the main thread's wait for the window's end. Same mix, keys and counting.
   */
  enum Mode {
    BLOCKING("blocking", false) {
      @Override
      long run(FrsmClient client, int callers, int seconds, int keys) throws InterruptedException {
        return runBlocking(client, callers, seconds, keys);
      }
    },
    ASYNC("async", false) {
      @Override
      long run(FrsmClient client, int callers, int seconds, int keys) throws InterruptedException {
        return new AsyncCallers(client, callers, seconds, keys).run();
      }
    },
    /** As {@link #ASYNC}, on a client whose futures complete on its network thread. */
    ASYNC_DIRECT("async-direct", true) {
      @Override
      long run(FrsmClient client, int callers, int seconds, int keys) throws InterruptedException {
        return new AsyncCallers(client, callers, seconds, keys).run();
      }
    };

    final String label;

    /** The client completes futures on its network thread ({@code callbackExecutor}). */
    final boolean directCallbacks;

    Mode(String label, boolean directCallbacks) {
      this.label = label;
      this.directCallbacks = directCallbacks;
    }

    /** Operations done by {@code callers} in {@code seconds}. */
    abstract long run(FrsmClient client, int callers, int seconds, int keys)
        throws InterruptedException;

    static List<Mode> parse(String list) {
      List<Mode> modes = new ArrayList<>();
      for (String name : list.split(",")) {
        modes.add(
            switch (name.trim()) {
              case "blocking" -> BLOCKING;
              case "async" -> ASYNC;
              case "async-direct" -> ASYNC_DIRECT;
              default -> throw new IllegalArgumentException("unknown mode " + name);
            });
      }
      return List.copyOf(modes);
    }
  }

  /** The load averages of the last 1, 5 and 15 minutes, as {@code /proc/loadavg} gives them. */
  private static String loadAverage() {
    try {
      String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
      return f[0] + "/" + f[1] + "/" + f[2];
    } catch (java.io.IOException | RuntimeException e) {
      return "?";
    }
  }

  /** Context switches the callers of the last {@link #run} had when they ended. */
  private static final LongAdder CALLER_VOLUNTARY = new LongAdder();

  private static final LongAdder CALLER_PREEMPTED = new LongAdder();

  /** Operations done by {@code threads} blocking callers in {@code seconds}. */
  private static long runBlocking(FrsmClient client, int threads, int seconds, int keys)
      throws InterruptedException {
    CALLER_VOLUNTARY.reset();
    CALLER_PREEMPTED.reset();
    LongAdder done = new LongAdder();
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    byte[] value = new byte[512];
    List<Thread> callers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread caller =
          new Thread(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (System.nanoTime() - end < 0) {
                  byte[] key = ("cpu-" + random.nextInt(keys)).getBytes(StandardCharsets.UTF_8);
                  try {
                    Optional<Versioned> read = client.get(key);
                    if (random.nextInt(100) < 57) {
                      if (read.isPresent()) {
                        Version v = read.get().version();
                        client.cas(key, v, value);
                      } else {
                        client.create(key, value);
                      }
                      done.increment(); // the CAS (or create); its get is counted below
                    }
                    done.increment();
                  } catch (FrsmException e) {
                    // A lost race (mismatch, exists) is part of the mix; not counted.
                  }
                }
                // A caller lives only through its run: it counts its own switches before it ends.
                long[] own = switchesOf(Path.of("/proc/thread-self/status"));
                if (own != null) {
                  CALLER_VOLUNTARY.add(own[0]);
                  CALLER_PREEMPTED.add(own[1]);
                }
              },
              "client-cpu-" + t);
      caller.start();
      callers.add(caller);
    }
    for (Thread caller : callers) {
      caller.join();
    }
    return done.sum();
  }

  /** utime + stime of process {@code pid}, in clock ticks ({@code /proc/PID/stat}). */
  private static long ticks(long pid) throws java.io.IOException {
    String[] f = statFields(Long.toString(pid));
    return Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat
  }

  /** stime of process {@code pid} ("self": this one), in clock ticks. */
  private static long systemTicks(String pid) throws java.io.IOException {
    return Long.parseLong(statFields(pid)[12]); // field 15 of stat
  }

  private static String[] statFields(String pid) throws java.io.IOException {
    String stat = Files.readString(Path.of("/proc", pid, "stat"));
    return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
  }

  /**
   * Voluntary (a thread blocked: parked, waiting in epoll) and involuntary (preempted) context
   * switches of this JVM's threads over a window: the threads alive at both ends (the client's
   * network threads, JIT, GC) by {@code /proc/self/task/TID/status}, plus what the measured callers
   * counted for themselves as they ended ({@link #run}). Counts, unlike CPU time, hardly move with
   * the machine's load.
   */
  private static long[] switchesOver(Map<String, long[]> before, Map<String, long[]> after) {
    long[] sum = {CALLER_VOLUNTARY.sum(), CALLER_PREEMPTED.sum()};
    after.forEach(
        (tid, end) -> {
          long[] start = before.get(tid);
          if (start != null) {
            sum[0] += end[0] - start[0];
            sum[1] += end[1] - start[1];
          }
        });
    return sum;
  }

  /** Each live thread's switches now, by thread id. */
  private static Map<String, long[]> threadSwitches() throws java.io.IOException {
    Map<String, long[]> byThread = new HashMap<>();
    try (var tasks = Files.list(Path.of("/proc/self/task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        long[] s = switchesOf(task.resolve("status"));
        if (s != null) {
          byThread.put(task.getFileName().toString(), s);
        }
      }
    }
    return byThread;
  }

  /** {voluntary, involuntary} from a status file; null if the thread has ended. */
  private static long[] switchesOf(Path status) {
    List<String> lines;
    try {
      lines = Files.readAllLines(status);
    } catch (java.io.IOException ended) {
      return null;
    }
    long[] s = new long[2];
    for (String line : lines) {
      if (line.startsWith("voluntary_ctxt_switches:")) {
        s[0] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      } else if (line.startsWith("nonvoluntary_ctxt_switches:")) {
        s[1] = Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
      }
    }
    return s;
  }

  /** Heap bytes every thread of this JVM allocated so far, or -1 where the JVM cannot tell. */
  private static long allocatedBytes() {
    if (ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads
        && threads.isThreadAllocatedMemorySupported()
        && threads.isThreadAllocatedMemoryEnabled()) {
      return threads.getTotalThreadAllocatedBytes();
    }
    return -1;
  }
}
