package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.bench.MainRuns;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every paper-evaluation experiment in quick mode, asserting sanity only — every step had
 * throughput, no operation failed, the counter check found no lost or doubled acknowledged
 * increment, the result files and charts were written — never speed.
 */
class ExperimentsQuickIT {
  @TempDir Path out;

  static Stream<String> experiments() {
    return ExperimentCommand.experiments().keySet().stream();
  }

  @ParameterizedTest
  @MethodSource("experiments")
  void quickRunIsSane(String name) throws Exception {
    ExperimentOptions options = new ExperimentOptions(true, out, 0, 0, line -> {});
    ExperimentReport r = ExperimentCommand.experiments().get(name).run(options);
    ExperimentCommand.write(out, r);

    assertTrue(r.table.rowCount() > 0, name + ": no rows");
    assertTrue(r.minOpsPerSecond > 0, name + ": a step had no throughput: " + r.sanityLine());
    assertEquals(0, r.errors, name + ": operations failed: " + r.sanityLine());
    assertEquals(List.of(), r.lostWrites, name + ": acknowledged increments lost or doubled");
    assertTrue(r.counterIncrements > 0, name + ": the counter check never incremented");
    assertTrue(ExperimentCommand.sane(r), r.sanityLine());
    assertCpuFigures(name, r);
    for (String suffix : List.of(".csv", ".json", ".md")) {
      assertTrue(Files.size(out.resolve(name + suffix)) > 0, name + suffix + " is empty");
    }
    assertTrue(!r.files.isEmpty(), name + ": no chart written");
    for (Path f : r.files) {
      assertTrue(Files.size(f) > 0, f + " is empty");
    }
  }

  /** The experiments whose tables show the JVM's CPU per step, and those that note it at peak. */
  static final Set<String> CPU_COLUMNS =
      Set.of("latency-throughput", "zookeeper", "multiphase", "cores");

  static final Set<String> CPU_NOTES = Set.of("latency-throughput", "zookeeper");

  private static void assertCpuFigures(String name, ExperimentReport r) {
    if (!CPU_COLUMNS.contains(name)) {
      return;
    }
    for (String column : List.of("cpu_us_per_op", "cpus_busy")) {
      int c = r.table.columns().indexOf(column);
      assertTrue(c >= 0, name + ": no " + column + " column");
      for (List<Object> row : r.table.rows()) {
        double v = ((Number) row.get(c)).doubleValue();
        // NaN only where the JVM does not report its CPU; never negative or infinite.
        assertTrue(Double.isNaN(v) || (v >= 0 && v < Double.POSITIVE_INFINITY), name + ": " + row);
      }
    }
    if (CPU_NOTES.contains(name)) {
      assertTrue(
          r.notes.stream().anyMatch(n -> n.contains("CPU per op at peak")),
          name + ": no CPU-per-op note: " + r.notes);
    }
  }

  @Test
  void unknownExperimentIsRefusedWithUsage() {
    MainRuns.Run r = MainRuns.run("experiment", "no-such-experiment");
    assertEquals(2, r.exitCode());
    assertTrue(r.err().contains("unknown experiment 'no-such-experiment'"), r.err());
    assertTrue(r.err().contains("usage:"), r.err());
  }
}
