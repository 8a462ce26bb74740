package io.frsm.server.cli;

import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.local.LocalCluster;
import io.frsm.server.node.FrsmNode;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code frsm local}: ZooKeeper and a cluster on loopback until Ctrl-C, then a clean stop. It
 * prints where everything listens and how to connect, and nothing more unless asked ({@code
 * --verbose}).
 */
@Command(name = "local", description = "ZooKeeper and an N-node cluster on loopback, until Ctrl-C.")
final class LocalCommand implements Callable<Integer> {
  /** The cluster id of {@code frsm local} and {@code frsm demo}. */
  static final String CLUSTER_ID = "local";

  @Option(
      names = "--nodes",
      paramLabel = "N",
      defaultValue = "3",
      description = "Nodes, 3 to 32 (replication factor 3; default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(
      names = "--joining",
      paramLabel = "J",
      defaultValue = "0",
      description =
          "More nodes, 0 to 4, started with cluster.join: true: each waits until added with frsm"
              + " admin add-node ID (default: ${DEFAULT-VALUE}).")
  int joining;

  @Mixin DataDirectoryOption data;

  @Spec CommandSpec spec;

  private final PrintStream out;

  LocalCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public Integer call() throws Exception {
    if (nodes < 3 || nodes > 32) {
      throw new ParameterException(
          spec.commandLine(), "--nodes must be in [3, 32] (replication factor 3)");
    }
    if (joining < 0 || joining > 4) {
      throw new ParameterException(spec.commandLine(), "--joining must be in [0, 4]");
    }
    Path dir = data.orNewTemporary("frsm-local-");
    out.println("starting ZooKeeper and " + nodes + " nodes on loopback (data in " + dir + ") ...");
    CountDownLatch stopped = new CountDownLatch(1);
    LocalCluster cluster = LocalCluster.start(dir, CLUSTER_ID, nodes);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  out.println("stopping the local cluster ...");
                  cluster.close();
                  out.println("the local cluster stopped");
                  stopped.countDown();
                },
                "frsm-local-shutdown"));
    out.println("frsm local cluster '" + CLUSTER_ID + "' is up");
    out.println(
        "  zookeeper: "
            + cluster.zookeeperConnect()
            + (cluster.zookeeperReaderCredentialFile() == null
                ? ""
                : " (read-only: --zookeeper-credential "
                    + cluster.zookeeperReaderCredentialFile()
                    + ")"));
    for (FrsmNode n : cluster.nodes()) {
      out.println(
          "  node "
              + n.nodeId()
              + ": peer "
              + HostPort.of(n.peerAddress())
              + ", client "
              + HostPort.of(n.clientAddress()));
    }
    for (int j = 0; j < joining; j++) {
      FrsmNode n = cluster.startJoining();
      out.println(
          "  node "
              + n.nodeId()
              + ": peer "
              + HostPort.of(n.peerAddress())
              + ", client "
              + HostPort.of(n.clientAddress())
              + " (joining: add it with frsm admin add-node "
              + n.nodeId()
              + ")");
    }
    TlsFiles client = cluster.adminClientFiles();
    out.println(
        "  certificates (CA, nodes, client "
            + LocalCluster.ADMIN_CLIENT
            + "): "
            + LocalCluster.certificateDirectory(dir));
    out.println(
        "try: frsm cli --seeds "
            + String.join(
                ",", cluster.nodes().stream().map(n -> HostPort.of(n.clientAddress())).toList())
            + " --cluster "
            + CLUSTER_ID
            + " --ca "
            + client.caBundle()
            + " --cert "
            + client.certificateChain()
            + " --key "
            + client.privateKey()
            + " get hello");
    out.println(
        "admin: frsm admin status --seeds "
            + HostPort.of(cluster.nodes().get(0).clientAddress())
            + " --cluster "
            + CLUSTER_ID
            + " --ca "
            + client.caBundle()
            + " --cert "
            + client.certificateChain()
            + " --key "
            + client.privateKey());
    out.println("Ctrl-C stops it.");
    stopped.await();
    return 0;
  }
}
