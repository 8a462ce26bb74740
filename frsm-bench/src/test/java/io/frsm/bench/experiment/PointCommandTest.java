package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.bench.MainRuns;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code experiment point}'s arguments: refused before any cluster starts. */
class PointCommandTest {
  @TempDir Path dir;

  /** {@code experiment point} with {@code args} and the required options; its standard error. */
  private String refused(Path data, String... args) {
    String[] common = {
      "experiment",
      "point",
      "--clients",
      "1",
      "--seconds",
      "1",
      "--keys",
      "10",
      "--data",
      data.toString()
    };
    MainRuns.Run r = MainRuns.run(MainRuns.concat(common, args));
    assertEquals(2, r.exitCode(), r.out() + r.err());
    assertTrue(r.err().contains("usage: frsm-bench.jar experiment point"), r.err());
    assertFalse(r.err().contains("\tat "), r.err());
    return r.err();
  }

  @Test
  void aThinClient_isFrsmsOnly_andTheClientKindMustBeKnown() throws Exception {
    Path data = dir.resolve("data");
    String crsm = refused(data, "--system", "crsm", "--client", "thin");
    assertTrue(crsm.contains("--client thin needs --system frsm"), crsm);
    String unknown = refused(data, "--system", "frsm", "--client", "fat");
    assertTrue(unknown.contains("expected one of [embedded, thin]"), unknown);
    assertTrue(!Files.exists(data), "no cluster was started");
  }

  @Test
  void everyOption_isChecked_beforeAnySystemStarts() {
    Path data = dir.resolve("data");
    assertTrue(refused(data).contains("--system is required"));
    assertTrue(refused(data, "--system", "etcd").contains("expected one of [frsm, crsm]"));
    assertTrue(refused(data, "--system", "frsm", "--clients", "x").contains("'--clients'"));
    assertTrue(
        refused(data, "--system", "frsm", "--core-on-loop", "maybe")
            .contains("auto, true or false"));
    assertTrue(
        refused(data, "--system", "frsm", "--group-commit-window", "-5")
            .contains("auto or microseconds"));
    assertTrue(
        refused(data, "--system", "frsm", "--distribution", "pareto").contains("zipf, uniform"));
    assertTrue(
        refused(data, "--system", "frsm", "--bogus", "1").contains("unknown option --bogus"));
    assertTrue(!Files.exists(data), "no cluster was started");
  }
}
