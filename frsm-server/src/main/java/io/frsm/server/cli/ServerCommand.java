package io.frsm.server.cli;

import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.metrics.MetricsEndpoint;
import io.frsm.server.node.FrsmNode;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** {@code frsm server --config frsm.yaml}: one production node until SIGTERM. */
final class ServerCommand {
  private ServerCommand() {}

  static int run(List<String> raw, PrintStream out) throws Exception {
    Args args = Args.parse(raw, Set.of("config"));
    FrsmConfig config = ConfigLoader.load(Path.of(args.required("config")), System.getenv());
    MetricsEndpoint metrics =
        config.metricsPort() == 0
            ? null
            : MetricsEndpoint.start(new InetSocketAddress("0.0.0.0", config.metricsPort()));
    FrsmNode node = node(config, metrics);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  if (metrics != null) {
                    metrics.healthy(false);
                  }
                  node.close();
                  if (metrics != null) {
                    metrics.close();
                  }
                  stopped.countDown();
                },
                "frsm-server-shutdown"));
    node.start();
    out.println(
        "frsm node "
            + config.nodeId()
            + " of cluster '"
            + config.clusterId()
            + "' started: peer "
            + HostPort.of(node.peerAddress())
            + ", client "
            + HostPort.of(node.clientAddress())
            + (metrics == null ? "" : ", metrics " + metrics.address()));
    stopped.await();
    return 0;
  }

  /** The node a config describes. */
  static FrsmNode node(FrsmConfig config, MetricsEndpoint metrics) {
    if (config.replicationFactor() != 3) {
      throw new IllegalArgumentException(
          "config key 'ring.replicationFactor': this version runs replication factor 3 only, was "
              + config.replicationFactor());
    }
    FrsmNode.Builder b =
        FrsmNode.builder()
            .nodeId(config.nodeId())
            .clusterId(config.clusterId())
            .rack(config.rack())
            .dataDirectory(config.dataDirectory())
            .commitLogDirectories(config.commitLogDirectories())
            .peerAddress(resolved(config.peerAddress()))
            .clientAddress(resolved(config.clientAddress()))
            .zookeeper(config.zookeeperConnect())
            .zookeeperSessionTimeout(config.zookeeperSessionTimeout())
            .initialNodes(config.initialNodes())
            .boundedDelay(config.boundedDelay())
            .lease(config.lease())
            .clockDriftPpm(config.clockDriftPpm())
            .leaderOnlyReads(config.leaderOnlyReads())
            .vnodes(config.vnodes())
            .lsm(lsm -> lsm.tunablesFrom(config.lsm()));
    if (config.advertisedHost() != null) {
      b.advertisedHost(config.advertisedHost());
    }
    if (metrics != null) {
      b.meterRegistry(metrics.registry());
    }
    return b.build();
  }

  private static InetSocketAddress resolved(InetSocketAddress a) {
    return new InetSocketAddress(a.getHostString(), a.getPort());
  }
}
