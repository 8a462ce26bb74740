package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.bench.lsm.TempDirs;
import io.frsm.server.workload.WorkloadRunner;
import io.frsm.server.workload.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/** Starting and stopping the measured systems in an experiment's data directory. */
final class Systems {
  /** The cRSM batch sizes of the paper's comparison (§4.3). */
  static final int[] CRSM_BATCHES = {1, 64, 128};

  private Systems() {}

  /** A fresh, empty directory for one system under the experiment's data directory. */
  static Path freshDir(ExperimentOptions o, String experiment, String system) {
    Path dir = o.dataDir(experiment).resolve(system.replace(' ', '-'));
    TempDirs.deleteRecursively(dir);
    return dir;
  }

  /** Client threads of the start-up warm-up. */
  static final int WARMUP_CLIENTS = 32;

  /**
   * Runs the paper workload unmeasured through {@code client} for {@link
   * ExperimentOptions#systemWarmup()} (nothing in quick mode): JIT compilation, hot keys created,
   * frsm's ranges past their first lease wait. Errors are retried as the API allows and otherwise
   * ignored here; every measured step checks its own.
   */
  static void warmUp(FrsmClient client, ExperimentOptions o, String system)
      throws InterruptedException {
    Duration d = o.systemWarmup();
    if (d.isZero()) {
      return;
    }
    o.progress()
        .accept(system + ": warm-up " + d.toSeconds() + " s, " + WARMUP_CLIENTS + " clients");
    WorkloadSpec spec = WorkloadSpec.paper(o.keyCount(), WARMUP_CLIENTS, d);
    new WorkloadRunner(new SafeRetries(client, new LongAdder()), spec, line -> {}).run();
  }

  /** Stops the system and deletes its data (runs leave no gigabytes behind). */
  static void stop(KvSystem system, Path dir) {
    try {
      system.close();
    } finally {
      TempDirs.deleteRecursively(dir);
    }
  }
}
