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

  /** The node a config describes, its meters on the endpoint's registry if there is one. */
  static FrsmNode node(FrsmConfig config, MetricsEndpoint metrics) {
    FrsmNode.Builder b = FrsmNode.builder().config(config);
    if (metrics != null) {
      b.meterRegistry(metrics.registry());
    }
    return b.build();
  }
}
