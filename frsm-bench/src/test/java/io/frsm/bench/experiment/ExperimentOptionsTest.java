package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** The experiment command's options: defaults and overrides of the warm-ups. */
class ExperimentOptionsTest {

  @Test
  void systemWarmup_defaultsToSixtySecondsFull_noneQuick_andCanBeSet() {
    assertEquals(Duration.ofSeconds(60), ExperimentCommand.parse("reads").systemWarmup());
    assertEquals(Duration.ZERO, ExperimentCommand.parse("reads", "--quick").systemWarmup());
    assertEquals(
        Duration.ofMillis(2500),
        ExperimentCommand.parse("reads", "--quick", "--system-warmup", "2.5").systemWarmup());
    assertEquals(
        Duration.ZERO, ExperimentCommand.parse("reads", "--system-warmup", "0").systemWarmup());
    assertThrows(
        ParameterException.class, () -> ExperimentCommand.parse("reads", "--system-warmup", "-3"));
    assertThrows(
        ParameterException.class, () -> ExperimentCommand.parse("reads", "--system-warmup"));
  }

  @Test
  void groupCommitWindow_isTheNodesDefault_autoOrMicroseconds() {
    assertEquals(GroupCommitWindow.AUTO, ExperimentCommand.parse("zookeeper").groupCommitWindow());
    assertEquals(
        GroupCommitWindow.fixed(Duration.ofMillis(1)),
        ExperimentCommand.parse("zookeeper", "--group-commit-window", "1000").groupCommitWindow());
    assertEquals(
        GroupCommitWindow.OFF,
        ExperimentCommand.parse("zookeeper", "--group-commit-window", "0").groupCommitWindow());
    assertEquals(
        GroupCommitWindow.AUTO,
        ExperimentCommand.parse("zookeeper", "--group-commit-window", "auto").groupCommitWindow());
    assertEquals(0, ExperimentCommand.parse("zookeeper").zookeeperFlushDelayMillis());
    assertEquals(
        2,
        ExperimentCommand.parse("zookeeper", "--zookeeper-flush-delay", "2")
            .zookeeperFlushDelayMillis());
    assertThrows(
        ParameterException.class,
        () -> ExperimentCommand.parse("zookeeper", "--zookeeper-flush-delay", "-1"));
    assertThrows(
        ParameterException.class,
        () -> ExperimentCommand.parse("zookeeper", "--group-commit-window", "-1"));
  }

  @Test
  void lease_isTheNodeDefaultUnlessAskedForTheWhatIf() {
    assertEquals(null, ExperimentCommand.parse("recovery").lease());
    assertEquals(
        Duration.ofMillis(1500), ExperimentCommand.parse("recovery", "--lease", "1500").lease());
    assertThrows(
        ParameterException.class, () -> ExperimentCommand.parse("recovery", "--lease", "3"));
  }
}
