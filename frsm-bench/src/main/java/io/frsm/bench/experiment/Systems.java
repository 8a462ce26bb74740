package io.frsm.bench.experiment;

import io.frsm.bench.lsm.TempDirs;
import java.nio.file.Path;

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

  /** Stops the system and deletes its data (runs leave no gigabytes behind). */
  static void stop(KvSystem system, Path dir) {
    try {
      system.close();
    } finally {
      TempDirs.deleteRecursively(dir);
    }
  }
}
