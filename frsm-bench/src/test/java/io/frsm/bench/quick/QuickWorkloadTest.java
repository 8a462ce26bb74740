package io.frsm.bench.quick;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.HdrHistogram.Histogram;
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
    assertTrue(r.gets().getTotalCount() > 0, "no get completed");
    assertTrue(r.puts().getTotalCount() > 0, "no put completed");
    String printed = bytes.toString(StandardCharsets.UTF_8);
    assertTrue(printed.contains("summary over"), printed);
    assertTrue(printed.contains("host cache"), printed);
  }

  @Test
  void histogramPercentiles_areWithinABucketOfTheTruth() {
    Histogram h = QuickWorkload.newLatencyHistogram();
    for (long v = 1; v <= 10_000; v++) {
      h.recordValue(v * 1000);
    }
    long p50 = h.getValueAtPercentile(50);
    long p99 = h.getValueAtPercentile(99);
    // Three significant digits: the bucket's top is at most 0.1% above the true value.
    assertTrue(p50 >= 5_000_000 && p50 <= 5_000_000 * 1.001, "p50 " + p50);
    assertTrue(p99 >= 9_900_000 && p99 <= 9_900_000 * 1.001, "p99 " + p99);
    assertEquals(0, QuickWorkload.newLatencyHistogram().getValueAtPercentile(50));
  }
}
