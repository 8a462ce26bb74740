package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

class ProcessCountsTest {
  @Test
  void field_matchesWholeNames_notTheirEndings() {
    // "voluntary_ctxt_switches:" is also the end of "nonvoluntary_ctxt_switches:".
    String status =
        "Name:\tjava\nThreads:\t3\nvoluntary_ctxt_switches:\t5\nnonvoluntary_ctxt_switches:\t7\n";
    assertEquals(5, ProcessCounts.field(status, "voluntary_ctxt_switches:"));
    assertEquals(7, ProcessCounts.field(status, "nonvoluntary_ctxt_switches:"));
    String reversed = "nonvoluntary_ctxt_switches:\t7\nvoluntary_ctxt_switches:\t5";
    assertEquals(5, ProcessCounts.field(reversed, "voluntary_ctxt_switches:"));
    assertEquals(7, ProcessCounts.field(reversed, "nonvoluntary_ctxt_switches:"));
    assertEquals(0, ProcessCounts.field(status, "syscr:"), "absent: 0");
  }

  @Test
  void metricSum_addsEveryLabelSetOfTheExactName() {
    String body =
        "# HELP frsm_lsm_scrub_bytes_total SSTable bytes the scrub read and verified\n"
            + "# TYPE frsm_lsm_scrub_bytes_total counter\n"
            + "frsm_lsm_scrub_bytes_total{node=\"1\"} 4194304.0\n"
            + "frsm_lsm_scrub_bytes_total{node=\"2\"} 1.0E3\n"
            + "frsm_lsm_scrub_bytes_total_other 7.0\n"
            + "frsm_lsm_scrub_tables_total 2.0\n";
    assertEquals(4_195_304, ProcessCounts.metricSum(body, "frsm_lsm_scrub_bytes_total"));
    assertEquals(2, ProcessCounts.metricSum(body + "\n", "frsm_lsm_scrub_tables_total"));
    assertEquals(0, ProcessCounts.metricSum("x_total 0.0\n", "x_total"), "present, zero");
    assertEquals(-1, ProcessCounts.metricSum(body, "frsm_lsm_scrub"), "absent: -1");
  }

  @Test
  void perOperation_dividesTheWindowsDifference() {
    ProcessCounts before = new ProcessCounts(100, 10, 1, 50, 40, 1_000, 20);
    ProcessCounts after = new ProcessCounts(300, 30, 5, 90, 80, 201_000, 22);
    assertEquals(
        "node1 cpu_us=500000.0 cs_vol=5.00 cs_invol=1.00 sysr=10.00 sysw=10.00 alloc_b=50000"
            + " threads=22",
        after.perOperation("node1", before, 4));
    ProcessCounts unknown = new ProcessCounts(300, 30, 5, 90, 80, -1, 22);
    assertTrue(unknown.perOperation("n", before, 4).contains("alloc_b=?"));
  }

  @Test
  void ownProcess_isRead() throws Exception {
    Assumptions.assumeTrue(java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/io")));
    ProcessCounts own = ProcessCounts.of(ProcessHandle.current().pid(), -1);
    assertTrue(own.threads() >= 1, "threads " + own.threads());
    assertTrue(own.voluntarySwitches() > 0, "a JVM has waited by now");
    assertTrue(own.readCalls() > 0, "it has read its class path");
  }
}
