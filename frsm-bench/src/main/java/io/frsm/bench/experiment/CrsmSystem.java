package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.bench.crsm.CrsmCluster;
import io.frsm.bench.crsm.CrsmConfig;
import io.frsm.bench.crsm.Network;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The coarse-grained baseline (3 nodes, 12 shards, batched Multi-Paxos logs on the same LSM) with a
 * given batch size, over the same Netty transport as frsm's peers (docs/CRSM.md). The one place
 * that knows how the experiments start it.
 */
final class CrsmSystem implements KvSystem {
  private final CrsmCluster cluster;
  private final int batch;

  private CrsmSystem(CrsmCluster cluster, int batch) {
    this.cluster = cluster;
    this.batch = batch;
  }

  /** Over Netty with frsm's default event-loop count per node, as frsm runs in the experiments. */
  static CrsmSystem start(Path dir, int batch) throws IOException {
    return start(dir, batch, CrsmCluster.defaultTransportThreads());
  }

  /** Over Netty (frsm's peer transport) with {@code transportThreads} event loops per node. */
  static CrsmSystem start(Path dir, int batch, int transportThreads) throws IOException {
    return new CrsmSystem(
        CrsmCluster.start(dir, CrsmConfig.benchmark(batch), Network.NETTY, transportThreads),
        batch);
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
