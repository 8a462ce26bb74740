package io.frsm.server.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadRunnerTest {

  @Test
  void paperWorkload_runsBothOperationTypes_inTheirMix_withoutErrors() throws Exception {
    WorkloadSpec spec = WorkloadSpec.paper(1000, 4, Duration.ofMillis(1500));
    List<String> progress = new ArrayList<>();
    WorkloadResult r = new WorkloadRunner(new InMemoryFrsmClient(), spec, progress::add).run();
    long reads = r.count("get");
    long writes = r.count("cas") + r.count("create");
    assertTrue(reads > 100 && writes > 100, r.summary());
    double readShare = (double) reads / (reads + writes);
    assertTrue(Math.abs(readShare - 0.43) < 0.05, "read share " + readShare);
    assertEquals(0, r.errors(), r.summary());
    assertTrue(r.count("create") >= 1, "absent keys are created first");
    assertTrue(r.latencyMicros("get", 99) > 0);
    assertTrue(r.toJson().contains("\"operations\":{"), r.toJson());
    assertTrue(r.toCsv().startsWith("operation,count,ops_per_second"), r.toCsv());
    assertTrue(!progress.isEmpty(), "a progress line every second");
  }

  @Test
  void keyNames_areTenZeroPaddedDigits_andOutOfRangeIndexesAreRefused() {
    assertEquals("key-0000000000", ascii(WorkloadRunner.key(0)));
    assertEquals("key-0000000042", ascii(WorkloadRunner.key(42)));
    assertEquals("key-9999999999", ascii(WorkloadRunner.key(9_999_999_999L)));
    assertEquals(
        String.format(java.util.Locale.ROOT, "key-%010d", 1_234_567L),
        ascii(WorkloadRunner.key(1_234_567L)));
    assertThrows(IllegalArgumentException.class, () -> WorkloadRunner.key(-1));
    assertThrows(IllegalArgumentException.class, () -> WorkloadRunner.key(10_000_000_000L));
    assertThrows(
        IllegalArgumentException.class,
        () -> WorkloadSpec.paper(10_000_000_001L, 1, Duration.ofSeconds(1)));
  }

  private static String ascii(byte[] b) {
    return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
  }

  @Test
  void openLoop_holdsTheTargetRate() throws Exception {
    WorkloadSpec spec =
        WorkloadSpec.paper(100, 2, Duration.ofSeconds(2)).uniform().withTargetRate(500);
    WorkloadResult r = new WorkloadRunner(new InMemoryFrsmClient(), spec, line -> {}).run();
    // Never more than the target (it is a cap, not a speed claim): 2 s at 500/s.
    assertTrue(r.totalOperations() <= 1000 + 2, "ops " + r.totalOperations());
    assertTrue(r.totalOperations() > 0);
  }

  @Test
  void zipf_isSkewed_andUniformIsNot() {
    ZipfianKeys zipf = new ZipfianKeys(10_000, 0.99, 1);
    ZipfianKeys uniform = new ZipfianKeys(10_000, 0, 1);
    long hotZipf = 0;
    long hotUniform = 0;
    for (int i = 0; i < 100_000; i++) {
      if (zipf.nextRank() < 100) {
        hotZipf++;
      }
      if (uniform.nextRank() < 100) {
        hotUniform++;
      }
    }
    // The top 1% of ranks takes roughly half the draws under Zipf 0.99, about 1% under uniform.
    assertTrue(hotZipf > 40_000, "zipf top-1% share " + hotZipf);
    assertTrue(hotUniform < 2_000, "uniform top-1% share " + hotUniform);
  }

  @Test
  void keyIndexes_stayInRange_andScatterIsABijection() {
    int n = 997;
    ZipfianKeys keys = new ZipfianKeys(n, 0.99, 3);
    boolean[] seen = new boolean[n];
    for (int i = 0; i < 200_000; i++) {
      long k = keys.next();
      assertTrue(k >= 0 && k < n);
      seen[(int) k] = true;
    }
    int distinct = 0;
    for (boolean b : seen) {
      distinct += b ? 1 : 0;
    }
    assertTrue(distinct > n / 2, "distinct keys drawn " + distinct);
  }
}
