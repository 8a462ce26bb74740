package io.frsm.bench.experiment;

import io.frsm.lsm.commitlog.CommitLogConfig;
import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * What the {@code experiment} command was asked: quick or full, where results go, and optional
 * overrides of each experiment's step duration and key count.
 *
 * @param stepSeconds measured seconds per step, 0 for the experiment's own default
 * @param keys key count, 0 for the default (10,000 quick, 100,000 full)
 * @param groupCommitWindow {@code lsm.commitLogGroupCommitWindow} of frsm's nodes in the zookeeper
 *     experiment (the node default: auto)
 * @param zookeeperFlushDelayMillis ZooKeeper's {@code zookeeper.flushDelay} in the zookeeper
 *     experiment (0, its default: a sync as soon as the queue runs dry)
 * @param lease frsm's range lease {@code consensus.lease} in the recovery experiment, null for the
 *     node default (a what-if: the default stays what production runs)
 * @param progress where live progress lines go
 */
record ExperimentOptions(
    boolean quick,
    Path out,
    double stepSeconds,
    long keys,
    double systemWarmupSeconds,
    GroupCommitWindow groupCommitWindow,
    long zookeeperFlushDelayMillis,
    Duration lease,
    Consumer<String> progress) {

  /** The defaults' options with an output directory: what the tests run. */
  ExperimentOptions(boolean quick, Path out, double stepSeconds, long keys, Consumer<String> p) {
    this(
        quick, out, stepSeconds, keys, -1, CommitLogConfig.DEFAULT_GROUP_COMMIT_WINDOW, 0, null, p);
  }

  static final Path DEFAULT_OUT = Path.of("frsm-bench", "target", "experiments");

  ExperimentOptions {
    if (out == null || progress == null || groupCommitWindow == null) {
      throw new IllegalArgumentException("out, progress and groupCommitWindow are required");
    }
    if (stepSeconds < 0 || keys < 0) {
      throw new IllegalArgumentException("--seconds and --keys must be >= 0");
    }
    if (systemWarmupSeconds < 0 && systemWarmupSeconds != -1) {
      throw new IllegalArgumentException("--system-warmup must be >= 0");
    }
    if (zookeeperFlushDelayMillis < 0) {
      throw new IllegalArgumentException("--zookeeper-flush-delay must be >= 0");
    }
    if (lease != null && lease.toMillis() < 4) {
      throw new IllegalArgumentException("--lease must be >= 4 ms (renewed every lease / 4)");
    }
  }

  /** A step's measured duration: the override, else {@code quickSeconds} or {@code fullSeconds}. */
  Duration step(double quickSeconds, double fullSeconds) {
    double s = stepSeconds > 0 ? stepSeconds : quick ? quickSeconds : fullSeconds;
    return Duration.ofMillis(Math.round(s * 1000));
  }

  /** The unmeasured warm-up before each step (hot keys created, caches and JIT warm). */
  Duration warmup() {
    return quick ? Duration.ofMillis(300) : Duration.ofSeconds(1);
  }

  /**
   * The unmeasured run of the paper workload on a system just started, before its first step (none
   * in quick mode unless {@code --system-warmup} says so). On this 2-core machine the JIT compilers
   * take most of a core for the first ~20 s of a run, and frsm's (more code: the ZooKeeper server
   * and Curator run in the same JVM, with lease renewals) still took 25% of the CPU at 25 s and 12%
   * at 65 s, against 8% for the cRSM at 25 s (perf, 2026-11-25): a step measured soon after
   * start-up measures compilation. Each system gets the same warm-up.
   */
  Duration systemWarmup() {
    if (systemWarmupSeconds >= 0) {
      return Duration.ofMillis(Math.round(systemWarmupSeconds * 1000));
    }
    return quick ? Duration.ZERO : SYSTEM_WARMUP;
  }

  static final Duration SYSTEM_WARMUP = Duration.ofSeconds(60);

  long keyCount() {
    return keys > 0 ? keys : quick ? 10_000 : 100_000;
  }

  /** Each experiment's working directory (data of the systems it starts) under the output. */
  Path dataDir(String experiment) {
    return out.resolve("data").resolve(experiment);
  }
}
