package io.frsm.bench.experiment;

import io.frsm.server.workload.WorkloadResult;
import java.util.ArrayList;
import java.util.List;

/**
 * One measured run: the workload's result plus the counter check that ran beside it.
 *
 * <p>An operation, in {@link #opsPerSecond} and {@link #cpuMicrosPerOp}, is one the workload
 * completed ({@link WorkloadResult#totalOperations}): a get, or a write — a read-modify-write (its
 * get and its CAS or create) counts as one, won or lost to a race; a fence resolving a CAS with an
 * unknown outcome counts as one more; a failed call and the counter check's increments count as
 * none. Both figures share that count and the measured run, so {@code cpuMicrosPerOp} ≈ 10⁶ ×
 * {@code cpusBusy / opsPerSecond}.
 *
 * @param counterIncrements increments the check saw take effect
 * @param lostOrDoubled the check's discrepancies (empty: no acknowledged increment lost or doubled)
 * @param safeRetries operations retried as the API allows ({@link SafeRetries})
 * @param cpu the JVM's CPU over the measured window ({@link CpuClock}): the workload, not the
 *     warm-up
 */
record Point(
    WorkloadResult result,
    long counterIncrements,
    List<String> lostOrDoubled,
    long safeRetries,
    CpuClock.CpuUse cpu) {

  double opsPerSecond() {
    return result.opsPerSecond();
  }

  /** Latencies in microseconds: a get, and a CAS write (its read plus its compare-and-swap). */
  double getP99Micros() {
    return result.latencyMicros("get", 99);
  }

  double casP99Micros() {
    return result.latencyMicros("cas", 99);
  }

  double getP50Micros() {
    return result.latencyMicros("get", 50);
  }

  double casP50Micros() {
    return result.latencyMicros("cas", 50);
  }

  /** CPU microseconds of the whole JVM per operation; NaN when the JVM does not report its CPU. */
  double cpuMicrosPerOp() {
    return cpu.microsPerOp(result.totalOperations());
  }

  /** Heap bytes the whole JVM allocated per operation; NaN when the JVM does not report it. */
  double allocatedBytesPerOp() {
    return cpu.bytesPerOp(result.totalOperations());
  }

  /** CPUs the whole JVM kept busy on average over the window; NaN when unknown. */
  double cpusBusy() {
    return cpu.cpusBusy();
  }

  /**
   * The columns of a step's throughput, latency and CPU figures ({@link #tableRow}), after {@code
   * keyColumns}, the columns that say which step it was.
   */
  static String[] tableColumns(String... keyColumns) {
    List<String> all = new ArrayList<>(List.of(keyColumns));
    all.addAll(
        List.of(
            "ops_per_s",
            "get_p50_us",
            "get_p99_us",
            "cas_p50_us",
            "cas_p99_us",
            "cas_mismatches",
            "cpu_us_per_op",
            "cpus_busy",
            "alloc_bytes_per_op"));
    return all.toArray(String[]::new);
  }

  /** The row of {@link #tableColumns}: {@code keyCells}, then this step's figures. */
  Object[] tableRow(Object... keyCells) {
    List<Object> all = new ArrayList<>(List.of(keyCells));
    all.addAll(
        List.of(
            opsPerSecond(),
            getP50Micros(),
            getP99Micros(),
            casP50Micros(),
            casP99Micros(),
            result.casMismatches(),
            cpuMicrosPerOp(),
            cpusBusy(),
            allocatedBytesPerOp()));
    return all.toArray();
  }

  /** The step of higher throughput (the first on a tie): a system's peak, for the notes. */
  static Point faster(Point a, Point b) {
    return b.opsPerSecond() > a.opsPerSecond() ? b : a;
  }

  long errors() {
    return result.errors();
  }
}
