package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The experiment command's options: defaults and overrides of the warm-ups. */
class ExperimentOptionsTest {

  @Test
  void systemWarmup_defaultsToSixtySecondsFull_noneQuick_andCanBeSet() {
    assertEquals(
        Duration.ofSeconds(60), ExperimentCommand.parse(new String[] {"reads"}).systemWarmup());
    assertEquals(
        Duration.ZERO, ExperimentCommand.parse(new String[] {"reads", "--quick"}).systemWarmup());
    assertEquals(
        Duration.ofMillis(2500),
        ExperimentCommand.parse(new String[] {"reads", "--quick", "--system-warmup", "2.5"})
            .systemWarmup());
    assertEquals(
        Duration.ZERO,
        ExperimentCommand.parse(new String[] {"reads", "--system-warmup", "0"}).systemWarmup());
    assertThrows(
        IllegalArgumentException.class,
        () -> ExperimentCommand.parse(new String[] {"reads", "--system-warmup", "-3"}));
    assertThrows(
        IllegalArgumentException.class,
        () -> ExperimentCommand.parse(new String[] {"reads", "--system-warmup"}));
  }

  @Test
  void groupCommitWindow_isOffByDefault_andTakenInMicroseconds() {
    assertEquals(
        Duration.ZERO, ExperimentCommand.parse(new String[] {"zookeeper"}).groupCommitWindow());
    assertEquals(
        Duration.ofMillis(1),
        ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "1000"})
            .groupCommitWindow());
    assertThrows(
        IllegalArgumentException.class,
        () -> ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "-1"}));
  }
}
