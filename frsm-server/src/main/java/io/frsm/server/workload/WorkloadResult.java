package io.frsm.server.workload;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run measured: per operation type (get, cas, create, fence) the count and latency
 * percentiles; contention and failure counts; throughput. Written as JSON and CSV.
 */
public final class WorkloadResult {
  final Map<String, OperationStats> operations = new TreeMap<>();
  long casMismatches;
  long outcomeUnknown;
  long errors;
  double elapsedSeconds;
  String lastError;

  OperationStats stats(String type) {
    return operations.computeIfAbsent(type, t -> new OperationStats());
  }

  void add(WorkloadResult other) {
    for (Map.Entry<String, OperationStats> e : other.operations.entrySet()) {
      stats(e.getKey()).add(e.getValue());
    }
    casMismatches += other.casMismatches;
    outcomeUnknown += other.outcomeUnknown;
    errors += other.errors;
    if (other.lastError != null) {
      lastError = other.lastError;
    }
  }

  public long count(String type) {
    OperationStats s = operations.get(type);
    return s == null ? 0 : s.count();
  }

  public long totalOperations() {
    long n = 0;
    for (OperationStats s : operations.values()) {
      n += s.count();
    }
    return n;
  }

  public double opsPerSecond() {
    return elapsedSeconds <= 0 ? 0 : totalOperations() / elapsedSeconds;
  }

  /** The latency at {@code percentile} (0–100) of {@code type}, in microseconds. */
  public double latencyMicros(String type, double percentile) {
    OperationStats s = operations.get(type);
    return s == null || s.count() == 0
        ? 0
        : s.latencyNanos.getValueAtPercentile(percentile) / 1000.0;
  }

  public long casMismatches() {
    return casMismatches;
  }

  public long outcomeUnknown() {
    return outcomeUnknown;
  }

  public long errors() {
    return errors;
  }

  public String toJson() {
    StringBuilder sb = new StringBuilder("{");
    sb.append(String.format(Locale.ROOT, "\"elapsedSeconds\":%.3f,", elapsedSeconds));
    sb.append(String.format(Locale.ROOT, "\"opsPerSecond\":%.1f,", opsPerSecond()));
    sb.append("\"casMismatches\":").append(casMismatches).append(',');
    sb.append("\"outcomeUnknown\":").append(outcomeUnknown).append(',');
    sb.append("\"errors\":").append(errors).append(",\"operations\":{");
    boolean first = true;
    for (String type : operations.keySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append('"').append(type).append("\":{\"count\":").append(count(type));
      for (double p : new double[] {50, 95, 99, 99.9}) {
        sb.append(
            String.format(
                Locale.ROOT, ",\"p%sMicros\":%.1f", percentileName(p), latencyMicros(type, p)));
      }
      sb.append('}');
    }
    return sb.append("}}").toString();
  }

  public String toCsv() {
    StringBuilder sb =
        new StringBuilder("operation,count,ops_per_second,p50_us,p95_us,p99_us,p999_us\n");
    for (String type : operations.keySet()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "%s,%d,%.1f,%.1f,%.1f,%.1f,%.1f%n",
              type,
              count(type),
              elapsedSeconds <= 0 ? 0 : count(type) / elapsedSeconds,
              latencyMicros(type, 50),
              latencyMicros(type, 95),
              latencyMicros(type, 99),
              latencyMicros(type, 99.9)));
    }
    return sb.toString();
  }

  private static String percentileName(double p) {
    return p == Math.rint(p) ? Long.toString((long) p) : Double.toString(p).replace(".", "");
  }

  public String summary() {
    StringBuilder sb =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%.0f ops/s over %.1f s; CAS mismatches %d, unknown outcomes %d, errors %d%n",
                opsPerSecond(),
                elapsedSeconds,
                casMismatches,
                outcomeUnknown,
                errors));
    for (String type : operations.keySet()) {
      sb.append(
          String.format(
              Locale.ROOT,
              "  %-7s %9d ops  p50 %8.1f us  p99 %8.1f us%n",
              type,
              count(type),
              latencyMicros(type, 50),
              latencyMicros(type, 99)));
    }
    if (lastError != null) {
      sb.append("  last error: ").append(lastError).append('\n');
    }
    return sb.toString();
  }
}
