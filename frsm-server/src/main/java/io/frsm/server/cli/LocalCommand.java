package io.frsm.server.cli;

import io.frsm.server.node.FrsmNode;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

/** {@code frsm local}: ZooKeeper and a cluster on loopback until Ctrl-C, then a clean stop. */
final class LocalCommand {
  private LocalCommand() {}

  static int run(List<String> raw, PrintStream out) throws Exception {
    Args args = Args.parse(raw, Set.of("nodes", "dir"));
    int nodes = args.integer("nodes", 3);
    if (nodes < 3 || nodes > 32) {
      throw new Args.UsageException("--nodes must be in [3, 32] (replication factor 3)");
    }
    Path dir =
        args.options.containsKey("dir")
            ? Path.of(args.options.get("dir"))
            : Files.createTempDirectory("frsm-local-");
    CountDownLatch stopped = new CountDownLatch(1);
    LocalCluster cluster = LocalCluster.start(dir, nodes);
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
    out.println("frsm local cluster '" + LocalCluster.CLUSTER_ID + "' is up; data in " + dir);
    out.println("  zookeeper: " + cluster.zookeeperConnect());
    for (FrsmNode n : cluster.nodes()) {
      out.println(
          "  node "
              + n.nodeId()
              + ": peer "
              + HostPort.of(n.peerAddress())
              + ", client "
              + HostPort.of(n.clientAddress()));
    }
    out.println(
        "try: frsm cli --zookeeper "
            + cluster.zookeeperConnect()
            + " --cluster "
            + LocalCluster.CLUSTER_ID
            + " get hello");
    out.println("Ctrl-C stops it.");
    stopped.await();
    return 0;
  }
}
