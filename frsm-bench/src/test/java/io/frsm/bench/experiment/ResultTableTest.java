package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
  void pointLinesRoundTrip() {
    assertEquals(12.5, PointCommand.parse("POINT ops=12.5 get_p50=1.0 lost=0").get("ops"));
    assertThrows(IllegalArgumentException.class, () -> PointCommand.parse("ops=1"));
  }
}
