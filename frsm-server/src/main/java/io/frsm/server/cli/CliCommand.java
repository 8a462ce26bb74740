package io.frsm.server.cli;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmClientBuilder;
import io.frsm.api.FrsmException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Token;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.ring.Ring;
import io.frsm.server.zk.ClusterShape;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.RangeTermStore;
import io.frsm.server.zk.ZkLayout;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code frsm cli}: one operation through a client (from {@code --seeds}, or the nodes' addresses
 * in {@code --zookeeper}), or a look at the ring (ZooKeeper). Keys and values are UTF-8 text. A
 * failed operation prints the typed error (e.g. the current version on a CAS mismatch) and exits 1.
 */
@Command(
    name = "cli",
    description = "One operation through a client, or a look at the ring.",
    synopsisSubcommandLabel = "OPERATION",
    footerHeading = "%n",
    footer = {
      "Keys and values are UTF-8 text; a version is EPOCH TIMESTAMP as get prints it.",
      "A failed operation prints its typed error (e.g. the current version on a CAS mismatch) and"
          + " exits 1."
    })
final class CliCommand implements Runnable {
  @Mixin ConnectionOptions connection;

  @Spec CommandSpec spec;

  private final PrintStream out;

  CliCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "cli needs an operation");
  }

  @Command(name = "get", description = "The key's value and version, or (absent).")
  int get(@Parameters(paramLabel = "KEY") String key) {
    return withClient(c -> print(c.get(bytes(key))));
  }

  @Command(name = "create", description = "Creates the key; fails if it exists.")
  int create(
      @Parameters(paramLabel = "KEY") String key, @Parameters(paramLabel = "VALUE") String value) {
    return withClient(c -> out.println("created at version " + c.create(bytes(key), bytes(value))));
  }

  @Command(
      name = "cas",
      description = "Writes VALUE if the key is still at version EPOCH TIMESTAMP.")
  int cas(
      @Parameters(paramLabel = "KEY") String key,
      @Parameters(paramLabel = "EPOCH") String epoch,
      @Parameters(paramLabel = "TIMESTAMP") String timestamp,
      @Parameters(paramLabel = "VALUE") String value) {
    Version expected = version("cas", epoch, timestamp);
    return withClient(
        c -> out.println("written at version " + c.cas(bytes(key), expected, bytes(value))));
  }

  @Command(
      name = "delete",
      description = "Deletes the key if it is still at version EPOCH TIMESTAMP.")
  int delete(
      @Parameters(paramLabel = "KEY") String key,
      @Parameters(paramLabel = "EPOCH") String epoch,
      @Parameters(paramLabel = "TIMESTAMP") String timestamp) {
    Version expected = version("delete", epoch, timestamp);
    return withClient(
        c -> {
          c.delete(bytes(key), expected);
          out.println("deleted");
        });
  }

  @Command(
      name = "fence",
      description = "Settles the key's outcome; moves its version on (older versions go stale).")
  int fence(@Parameters(paramLabel = "KEY") String key) {
    return withClient(c -> print(c.fence(bytes(key))));
  }

  @Command(name = "ring", description = "The cluster's nodes, and the ranges each leads.")
  int ring() throws Exception {
    return ring(null);
  }

  @Command(name = "leader", description = "The key's range, its current and natural leader.")
  int leader(@Parameters(paramLabel = "KEY") String key) throws Exception {
    return ring(key);
  }

  private interface Operation {
    void on(FrsmClient client);
  }

  /** Runs {@code operation} through a client: 0, or 1 with the typed error printed. */
  private int withClient(Operation operation) {
    connection.requireOneSource(spec.commandLine());
    FrsmClientBuilder builder = security(FrsmClient.builder()).clusterId(connection.cluster);
    try {
      if (connection.seeds != null) {
        builder.seeds(connection.seeds);
      } else {
        builder.zookeeper(connection.zookeeper);
        if (connection.zookeeperCredential != null) {
          builder.zookeeperCredential(connection.zookeeperCredential);
        }
      }
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    try (FrsmClient client = builder.build()) {
      operation.on(client);
      return 0;
    } catch (FrsmException e) {
      out.println("error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return 1;
    }
  }

  /** TLS with the three files, or plaintext with --insecure: exactly one of them. */
  private FrsmClientBuilder security(FrsmClientBuilder b) {
    if (connection.plaintext(spec.commandLine())) {
      return b.insecure();
    }
    return b.tls(connection.caBundle, connection.certificateChain, connection.privateKey);
  }

  /** The ring and its nodes, or with {@code key} the leaders of its range. */
  private int ring(String key) throws Exception {
    if (connection.zookeeper == null) {
      throw new ParameterException(
          spec.commandLine(), "ring and leader read the cluster's ZooKeeper: give --zookeeper");
    }
    try (CuratorFramework zk =
        ZooKeeperConnect.client(spec, connection.zookeeper, connection.zookeeperCredential)) {
      zk.start();
      if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
        out.println("error: cannot reach ZooKeeper at " + connection.zookeeper);
        return 1;
      }
      ZkLayout layout = new ZkLayout(connection.cluster);
      ClusterShape shape = ClusterShape.read(zk, layout);
      List<NodeInfo> members;
      try (MembershipRegistry registry = new MembershipRegistry(zk, layout)) {
        members = registry.members();
      }
      if (shape == null) {
        out.println(
            "cluster '" + connection.cluster + "' has not formed; live members: " + members);
        return 1;
      }
      Map<Integer, NodeInfo> live = new TreeMap<>();
      members.forEach(m -> live.put(m.nodeId(), m));
      Ring ring = shape.ring();
      if (key != null) {
        long token = Token.of(bytes(key));
        out.println(
            "key '"
                + key
                + "' token "
                + token
                + ": range "
                + ring.rangeIndexOf(token)
                + ", current leader "
                + currentLeader(zk, layout, ring.rangeIndexOf(token))
                + ", natural leader node "
                + ring.naturalLeaderFor(token)
                + ", replicas "
                + ring.replicasFor(token));
        return 0;
      }
      out.println(
          "cluster '"
              + connection.cluster
              + "': nodes "
              + shape.nodeIds()
              + ", vnodes "
              + shape.vnodes()
              + ", replication factor "
              + shape.replicationFactor());
      RangeTermStore terms = new RangeTermStore(zk, layout, System::nanoTime);
      Map<Integer, Integer> leading = new TreeMap<>();
      for (int r = 0; r < ring.rangeCount(); r++) {
        terms
            .current(ZkLayout.rangeId(r))
            .ifPresent(t -> leading.merge((int) t[1], 1, Integer::sum));
      }
      for (int id : shape.nodeIds()) {
        NodeInfo n = live.get(id);
        long led = ring.ranges().stream().filter(r -> r.replicas().get(0) == id).count();
        out.println(
            "  node "
                + id
                + (n == null
                    ? " DOWN"
                    : " up at "
                        + n.host()
                        + " peer "
                        + n.peerPort()
                        + " client "
                        + n.clientPort()
                        + " rack "
                        + n.rack())
                + ", natural leader of "
                + led
                + " of "
                + ring.ranges().size()
                + " ranges, named leader of "
                + (n == null ? 0 : leading.getOrDefault(id, 0))
                + " now");
      }
      return 0;
    }
  }

  /** The node that took the range's latest term ("none" if no node ever led it). */
  private static String currentLeader(CuratorFramework zk, ZkLayout layout, int range)
      throws Exception {
    return new RangeTermStore(zk, layout, System::nanoTime)
        .current(ZkLayout.rangeId(range))
        .map(t -> "node " + t[1] + " (term " + t[0] + ")")
        .orElse("none");
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The version of {@code operation}'s EPOCH and TIMESTAMP; a usage error if they are not one. */
  private Version version(String operation, String epoch, String timestamp) {
    try {
      return new Version(Long.parseLong(epoch), Long.parseLong(timestamp));
    } catch (IllegalArgumentException e) { // NumberFormatException, or a negative part
      throw new ParameterException(
          spec.subcommands().get(operation),
          "a version is two non-negative integers: EPOCH TIMESTAMP");
    }
  }

  private void print(Optional<Versioned> v) {
    if (v.isEmpty()) {
      out.println("(absent)");
    } else {
      out.println(
          new String(v.get().value(), StandardCharsets.UTF_8) + "  @ version " + v.get().version());
    }
  }
}
