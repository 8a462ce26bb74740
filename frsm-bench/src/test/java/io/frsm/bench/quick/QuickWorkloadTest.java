package io.frsm.bench.quick;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class QuickWorkloadTest {

  @Test
  void oneSecondMixedWorkload_runsGetsAndPutsWithoutErrors() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    QuickWorkload.Result r;
    try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
      r = QuickWorkload.run(new QuickWorkload.Settings(Duration.ofSeconds(1), 4, 2000, 0.43), out);
    }
    assertEquals(0, r.errors(), () -> "first error: " + r.firstError());
    assertTrue(r.gets().count() > 0, "no get completed");
    assertTrue(r.puts().count() > 0, "no put completed");
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("summary over"), printed);
    assertTrue(printed.contains("host cache"), printed);
  }

  @Test
  void histogramPercentiles_areWithinABucketOfTheTruth() {
    LatencyHistogram h = new LatencyHistogram();
    for (long v = 1; v <= 10_000; v++) {
      h.record(v * 1000);
    }
    long p50 = h.percentileNanos(0.5);
    long p99 = h.percentileNanos(0.99);
    assertTrue(p50 >= 5_000_000 && p50 <= 5_000_000 * 1.07, "p50 " + p50);
    assertTrue(p99 >= 9_900_000 && p99 <= 9_900_000 * 1.07, "p99 " + p99);
    assertEquals(0, new LatencyHistogram().percentileNanos(0.5));
  }
}
