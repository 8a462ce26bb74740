package io.frsm.bench.experiment;

import io.frsm.server.workload.WorkloadResult;
import java.util.List;

/**
 * One measured run: the workload's result plus the counter check that ran beside it.
 *
 * @param counterIncrements increments the check saw take effect
 * @param lostOrDoubled the check's discrepancies (empty: no acknowledged increment lost or doubled)
 * @param safeRetries operations retried as the API allows ({@link SafeRetries})
 */
record Point(
    WorkloadResult result, long counterIncrements, List<String> lostOrDoubled, long safeRetries) {

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

  long errors() {
    return result.errors();
  }
}
