package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.bench.crsm.CrsmCluster;
import io.frsm.bench.crsm.CrsmConfig;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The coarse-grained baseline (3 nodes, 12 shards, batched Multi-Paxos logs on the same LSM) with a
 * given batch size. The one place that knows how the experiments start it, so the transport option
 * of the {@code crsm} branch is switched on here.
 */
final class CrsmSystem implements KvSystem {
  private final CrsmCluster cluster;
  private final int batch;

  private CrsmSystem(CrsmCluster cluster, int batch) {
    this.cluster = cluster;
    this.batch = batch;
  }

  static CrsmSystem start(Path dir, int batch) throws IOException {
    return new CrsmSystem(CrsmCluster.start(dir, CrsmConfig.benchmark(batch)), batch);
  }

  @Override
  public String name() {
    return "cRSM b" + batch;
  }

  @Override
  public FrsmClient client() {
    return cluster.client();
  }

  @Override
  public void close() {
    cluster.close();
  }
}
