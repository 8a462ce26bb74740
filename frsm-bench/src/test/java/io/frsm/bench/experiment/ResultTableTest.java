package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.workload.WorkloadResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableTest {

  @Test
  void writesCsvJsonAndMarkdownWithTheSameCells() {
    ResultTable t = new ResultTable("system", "clients", "ops_per_s");
    t.add("cRSM b128", 16, 7920.25);
    t.add("a \"quoted\", name", 1, 0.5);

    assertEquals(
        "system,clients,ops_per_s\ncRSM b128,16,7920.250\n\"a \"\"quoted\"\", name\",1,0.500\n",
        t.csv());
    assertEquals(
        "[\n  {\"system\": \"cRSM b128\", \"clients\": 16, \"ops_per_s\": 7920.250},\n"
            + "  {\"system\": \"a \\\"quoted\\\", name\", \"clients\": 1, \"ops_per_s\": 0.500}\n]\n",
        t.json());
    assertEquals(
        "| system | clients | ops_per_s |\n| --- | --- | --- |\n| cRSM b128 | 16 | 7920 |\n"
            + "| a \"quoted\", name | 1 | 0.500 |\n",
        t.markdown());
  }

  @Test
  void refusesARowOfTheWrongWidth() {
    ResultTable t = new ResultTable("a", "b");
    assertThrows(IllegalArgumentException.class, () -> t.add("only one"));
  }

  @Test
  void anUnknownFigureIsNaNInTextAndCsvAndNullInJson() {
    ResultTable t = new ResultTable("system", "cpu_us_per_op", "cpus_busy");
    t.add("frsm", 173.4, 1.93);
    t.add("ZooKeeper", Double.NaN, Double.NaN);

    assertEquals(
        "system,cpu_us_per_op,cpus_busy\nfrsm,173.400,1.930\nZooKeeper,NaN,NaN\n", t.csv());
    assertEquals(
        "[\n  {\"system\": \"frsm\", \"cpu_us_per_op\": 173.400, \"cpus_busy\": 1.930},\n"
            + "  {\"system\": \"ZooKeeper\", \"cpu_us_per_op\": null, \"cpus_busy\": null}\n]\n",
        t.json());
    assertEquals(
        "system     cpu_us_per_op  cpus_busy\n"
            + "---------  -------------  ---------\n"
            + "frsm                 173       1.93\n"
            + "ZooKeeper            NaN        NaN\n",
        t.render());
  }

  @Test
  void pointLinesRoundTrip() {
    assertEquals(12.5, PointCommand.parse("POINT ops=12.5 get_p50=1.0 lost=0").get("ops"));
    assertThrows(IllegalArgumentException.class, () -> PointCommand.parse("ops=1"));
  }

  @Test
  void pointLinesCarryTheCpuFiguresNaNIncluded() {
    // No operation completed: CPU per op is NaN; the CPU itself was measured (1.5 CPUs busy).
    Point none =
        new Point(new WorkloadResult(), 0, List.of(), 0, new CpuClock.CpuUse(3_000_000, 2_000_000));

    Map<String, Double> fields = PointCommand.parse(PointCommand.format(none));

    assertTrue(Double.isNaN(fields.get("cpu_us_per_op")), fields.toString());
    assertEquals(1.5, fields.get("cpus_busy"), 1e-9);
  }
}
