package io.frsm.bench.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Every system call of one process over a window, by kind, counted by the kernel's tracepoints
 * ({@code perf stat -e raw_syscalls:sys_enter,syscalls:sys_enter_…}, counting only: no sampling, no
 * ptrace, so the process runs at its normal speed). Needs perf and the right to trace the process
 * (root, or {@code perf_event_paranoid} low enough); {@link #start} returns null when perf does not
 * start.
 */
final class SyscallCounts {
  /** The kinds worth naming on a network path: wake-ups, reads, writes, futex hand-offs. */
  private static final List<String> KINDS =
      List.of(
          "epoll_wait",
          "epoll_pwait",
          "read",
          "write",
          "writev",
          "futex",
          "sendmsg",
          "recvfrom",
          "fdatasync",
          "pwrite64");

  private final Process perf;
  private final Path output;

  private SyscallCounts(Process perf, Path output) {
    this.perf = perf;
    this.output = output;
  }

  /** Starts counting process {@code pid}'s system calls for {@code seconds}; null if perf fails. */
  static SyscallCounts start(long pid, int seconds, Path output) {
    List<String> command = new ArrayList<>(List.of("perf", "stat", "-x", ",", "-o"));
    command.add(output.toString());
    StringBuilder events = new StringBuilder("raw_syscalls:sys_enter");
    for (String kind : KINDS) {
      events.append(",syscalls:sys_enter_").append(kind);
    }
    command.addAll(
        List.of(
            "-e",
            events.toString(),
            "-p",
            Long.toString(pid),
            "--",
            "sleep",
            Integer.toString(seconds)));
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return new SyscallCounts(p, output);
    } catch (IOException e) {
      return null;
    }
  }

  /**
   * Waits for the window's end and returns {@code sys=… epoll_wait=… …}, each per operation (kinds
   * never called left out); empty if perf gave nothing.
   */
  String perOperation(long operations) throws InterruptedException, IOException {
    if (!perf.waitFor(60, TimeUnit.SECONDS)) {
      perf.destroy();
      return "";
    }
    if (!Files.exists(output)) {
      return "";
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    for (String line : Files.readAllLines(output)) {
      String[] f = line.split(",");
      if (f.length < 3 || line.startsWith("#") || !f[0].matches("[0-9]+")) {
        continue;
      }
      String event = f[2];
      String kind =
          event.equals("raw_syscalls:sys_enter")
              ? "sys"
              : event.substring(event.indexOf("sys_enter_") + "sys_enter_".length());
      counts.put(kind, Long.parseLong(f[0]));
    }
    StringBuilder out = new StringBuilder();
    double ops = Math.max(1, operations);
    counts.forEach(
        (kind, n) -> {
          if (n > 0) {
            out.append(String.format(Locale.ROOT, " %s=%.2f", kind, n / ops));
          }
        });
    return out.toString().trim();
  }
}
