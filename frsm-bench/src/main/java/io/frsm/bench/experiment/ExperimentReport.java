package io.frsm.bench.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * What one experiment produced: its table, the files written, notes for the reader (e.g. which read
 * mode served, the machine's core count) and the sanity facts CI asserts: every step had
 * throughput, no operation failed, no acknowledged counter increment was lost.
 */
final class ExperimentReport {
  final String name;
  final ResultTable table;
  final List<Path> files = new ArrayList<>();
  final List<String> notes = new ArrayList<>();
  double minOpsPerSecond = Double.POSITIVE_INFINITY;
  long errors;
  long counterIncrements;
  long safeRetries;
  final List<String> lostWrites = new ArrayList<>();

  ExperimentReport(String name, ResultTable table) {
    this.name = name;
    this.table = table;
  }

  /** Folds one measured step into the sanity facts. */
  void account(String label, Point p) {
    minOpsPerSecond = Math.min(minOpsPerSecond, p.opsPerSecond());
    errors += p.errors();
    counterIncrements += p.counterIncrements();
    safeRetries += p.safeRetries();
    for (String problem : p.lostOrDoubled()) {
      lostWrites.add(label + ": " + problem);
    }
  }

  void note(String text) {
    notes.add(text);
  }

  /**
   * Notes the CPU per operation of two systems, each at its peak step: on a CPU-bound machine their
   * throughput ratio is about the inverse of this one.
   */
  void noteCpuPerOpAtPeak(String prefix, String nameA, Point peakA, String nameB, Point peakB) {
    double a = peakA == null ? Double.NaN : peakA.cpuMicrosPerOp();
    double b = peakB == null ? Double.NaN : peakB.cpuMicrosPerOp();
    note(
        String.format(
            java.util.Locale.ROOT,
            "%sCPU per op at peak, %s %.0f µs vs %s %.0f µs (%.2fx)",
            prefix,
            nameA,
            a,
            nameB,
            b,
            b > 0 ? a / b : Double.NaN));
  }

  String sanityLine() {
    return String.format(
        java.util.Locale.ROOT,
        "sanity: min throughput %.0f ops/s, errors %d, counter increments %d, lost or doubled %d;"
            + " safe retries (not executed; unknown get or fence) %d",
        minOpsPerSecond,
        errors,
        counterIncrements,
        lostWrites.size(),
        safeRetries);
  }
}
