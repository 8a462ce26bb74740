package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.lsm.commitlog.GroupCommitWindow;
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
  void groupCommitWindow_isTheNodesDefault_autoOrMicroseconds() {
    assertEquals(
        GroupCommitWindow.AUTO,
        ExperimentCommand.parse(new String[] {"zookeeper"}).groupCommitWindow());
    assertEquals(
        GroupCommitWindow.fixed(Duration.ofMillis(1)),
        ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "1000"})
            .groupCommitWindow());
    assertEquals(
        GroupCommitWindow.OFF,
        ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "0"})
            .groupCommitWindow());
    assertEquals(
        GroupCommitWindow.AUTO,
        ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "auto"})
            .groupCommitWindow());
    assertEquals(
        0, ExperimentCommand.parse(new String[] {"zookeeper"}).zookeeperFlushDelayMillis());
    assertEquals(
        2,
        ExperimentCommand.parse(new String[] {"zookeeper", "--zookeeper-flush-delay", "2"})
            .zookeeperFlushDelayMillis());
    assertThrows(
        IllegalArgumentException.class,
        () -> ExperimentCommand.parse(new String[] {"zookeeper", "--zookeeper-flush-delay", "-1"}));
    assertThrows(
        IllegalArgumentException.class,
        () -> ExperimentCommand.parse(new String[] {"zookeeper", "--group-commit-window", "-1"}));
  }
}
