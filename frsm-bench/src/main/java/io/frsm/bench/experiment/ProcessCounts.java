package io.frsm.bench.experiment;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * What one process spent, read from Linux {@code /proc} (and, for an frsm node, its metrics
 * endpoint), so that a window's difference divided by the operations done in it gives costs per
 * operation that depend little on what else the shared machine runs: CPU (utime + stime, 10 ms
 * ticks), context switches (voluntary — a thread waited: a park, an idle epoll — and involuntary,
 * summed over the process's live threads), read-/write-family system calls ({@code syscr}/{@code
 * syscw} of {@code /proc/PID/io}: read, readv, write, writev..., not epoll_wait or futex), bytes
 * allocated on the heap, and the live thread count.
 *
 * <p>Context switches of threads that ended within the window are not counted ({@code /proc} keeps
 * no total for them); the harness's processes start their threads before the window.
 */
record ProcessCounts(
    long cpuTicks,
    long voluntarySwitches,
    long involuntarySwitches,
    long readCalls,
    long writeCalls,
    long allocatedBytes,
    int threads) {

  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /**
   * The counts of process {@code pid}; {@code allocatedBytes} from {@code allocated} (-1 when not
   * known).
   */
  static ProcessCounts of(long pid, long allocated) throws IOException {
    Path proc = Path.of("/proc", Long.toString(pid));
    String stat = Files.readString(proc.resolve("stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // fields 14 and 15 of stat
    long voluntary = 0;
    long involuntary = 0;
    int threads = 0;
    try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String status;
        try {
          status = Files.readString(task.resolve("status"));
        } catch (IOException gone) {
          continue; // the thread ended while we listed
        }
        threads++;
        voluntary += field(status, "voluntary_ctxt_switches:");
        involuntary += field(status, "nonvoluntary_ctxt_switches:");
      }
    }
    String io = Files.readString(proc.resolve("io"));
    return new ProcessCounts(
        ticks,
        voluntary,
        involuntary,
        field(io, "syscr:"),
        field(io, "syscw:"),
        allocated,
        threads);
  }

  /**
   * Bytes a node's JVM has allocated on its heap so far, from its Prometheus endpoint: the young
   * generation's growth counted at each collection ({@code jvm_gc_memory_allocated_bytes_total})
   * plus what eden holds now (allocated since the last collection); -1 if it cannot be read.
   */
  static long nodeAllocatedBytes(int metricsPort) {
    try {
      String body = metrics(metricsPort);
      double collected = Double.NaN;
      double eden = 0;
      for (String line : body.split("\n")) {
        if (line.startsWith("jvm_gc_memory_allocated_bytes_total ")) {
          collected = Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        } else if (line.startsWith("jvm_memory_used_bytes{")
            && line.contains("area=\"heap\"")
            && line.contains("Eden")) {
          eden += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
      }
      return Double.isNaN(collected) ? -1 : (long) (collected + eden);
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * The sum of a node's samples of the Prometheus counter or gauge {@code name} (every label set),
   * e.g. {@code frsm_lsm_scrub_bytes_total}; -1 if the endpoint cannot be read or has no such
   * sample.
   */
  static long nodeMetric(int metricsPort, String name) {
    try {
      return metricSum(metrics(metricsPort), name);
    } catch (IOException | RuntimeException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * The sum of the samples of metric {@code name} in a Prometheus text {@code body} (the name
   * exactly, with or without labels), -1 if there is none.
   */
  static long metricSum(String body, String name) {
    double sum = 0;
    boolean found = false;
    for (String line : body.split("\n")) {
      if (line.startsWith(name)
          && line.length() > name.length()
          && (line.charAt(name.length()) == ' ' || line.charAt(name.length()) == '{')) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    return found ? (long) sum : -1;
  }

  private static String metrics(int metricsPort) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** Bytes this JVM's threads have allocated so far (HotSpot), -1 if not supported. */
  static long ownAllocatedBytes() {
    java.lang.management.ThreadMXBean bean =
        java.lang.management.ManagementFactory.getThreadMXBean();
    if (bean instanceof com.sun.management.ThreadMXBean hotspot
        && hotspot.isThreadAllocatedMemorySupported()
        && hotspot.isThreadAllocatedMemoryEnabled()) {
      return hotspot.getTotalThreadAllocatedBytes();
    }
    return -1;
  }

  /**
   * One line {@code name cpu_us=… cs_vol=… cs_invol=… sysrw=… alloc_b=… threads=…}, each per
   * operation over the window from {@code before} to this.
   */
  String perOperation(String name, ProcessCounts before, long operations) {
    double ops = Math.max(1, operations);
    return String.format(
        Locale.ROOT,
        "%s cpu_us=%.1f cs_vol=%.2f cs_invol=%.2f sysr=%.2f sysw=%.2f alloc_b=%s threads=%d",
        name,
        (cpuTicks - before.cpuTicks) * 10_000.0 / ops,
        (voluntarySwitches - before.voluntarySwitches) / ops,
        (involuntarySwitches - before.involuntarySwitches) / ops,
        (readCalls - before.readCalls) / ops,
        (writeCalls - before.writeCalls) / ops,
        allocatedBytes < 0 || before.allocatedBytes < 0
            ? "?"
            : String.format(Locale.ROOT, "%.0f", (allocatedBytes - before.allocatedBytes) / ops),
        threads);
  }

  static long field(String text, String name) {
    // At a line's start: "voluntary_ctxt_switches:" also ends "nonvoluntary_ctxt_switches:".
    int at = text.startsWith(name) ? 0 : text.indexOf("\n" + name);
    if (at < 0) {
      return 0;
    }
    int start = text.indexOf(name, at) + name.length();
    int end = text.indexOf('\n', start);
    return Long.parseLong(text.substring(start, end < 0 ? text.length() : end).trim());
  }
}
