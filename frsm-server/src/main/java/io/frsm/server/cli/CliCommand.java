package io.frsm.server.cli;

import io.frsm.api.FrsmClient;
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
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code frsm cli}: one operation through a thin client, or a look at the ring. Keys and values are
 * UTF-8 text. A failed operation prints the typed error (e.g. the current version on a CAS
 * mismatch) and exits 1.
 */
final class CliCommand {
  private CliCommand() {}

  static int run(List<String> raw, PrintStream out) throws Exception {
    Args args = Args.parse(raw, Set.of("zookeeper", "cluster"));
    String zookeeper = args.required("zookeeper");
    String cluster = args.get("cluster", "frsm");
    List<String> p = args.positional;
    if (p.isEmpty()) {
      throw new Args.UsageException("cli needs a command");
    }
    String command = p.get(0);
    if (command.equals("ring") || command.equals("leader")) {
      return ring(zookeeper, cluster, p, out);
    }
    try (FrsmClient client = FrsmClient.builder().zookeeper(zookeeper).clusterId(cluster).build()) {
      switch (command) {
        case "get" -> {
          need(p, 2, "get KEY");
          print(out, client.get(bytes(p.get(1))));
        }
        case "create" -> {
          need(p, 3, "create KEY VALUE");
          out.println("created at version " + client.create(bytes(p.get(1)), bytes(p.get(2))));
        }
        case "cas" -> {
          need(p, 5, "cas KEY EPOCH TIMESTAMP VALUE");
          out.println(
              "written at version "
                  + client.cas(bytes(p.get(1)), version(p.get(2), p.get(3)), bytes(p.get(4))));
        }
        case "delete" -> {
          need(p, 4, "delete KEY EPOCH TIMESTAMP");
          client.delete(bytes(p.get(1)), version(p.get(2), p.get(3)));
          out.println("deleted");
        }
        case "fence" -> {
          need(p, 2, "fence KEY");
          print(out, client.fence(bytes(p.get(1))));
        }
        default -> throw new Args.UsageException("unknown cli command '" + command + "'");
      }
      return 0;
    } catch (FrsmException e) {
      out.println("error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      return 1;
    }
  }

  private static int ring(String zookeeper, String cluster, List<String> p, PrintStream out)
      throws Exception {
    try (CuratorFramework zk =
        CuratorFrameworkFactory.newClient(zookeeper, new ExponentialBackoffRetry(100, 3))) {
      zk.start();
      if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
        out.println("error: cannot reach ZooKeeper at " + zookeeper);
        return 1;
      }
      ZkLayout layout = new ZkLayout(cluster);
      ClusterShape shape = ClusterShape.read(zk, layout);
      List<NodeInfo> members;
      try (MembershipRegistry registry = new MembershipRegistry(zk, layout)) {
        members = registry.members();
      }
      if (shape == null) {
        out.println("cluster '" + cluster + "' has not formed; live members: " + members);
        return 1;
      }
      Map<Integer, NodeInfo> live = new TreeMap<>();
      members.forEach(m -> live.put(m.nodeId(), m));
      Ring ring = shape.ring();
      if (p.get(0).equals("leader")) {
        need(p, 2, "leader KEY");
        long token = Token.of(bytes(p.get(1)));
        out.println(
            "key '"
                + p.get(1)
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
              + cluster
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

  private static void need(List<String> p, int n, String usage) {
    if (p.size() != n) {
      throw new Args.UsageException("usage: frsm cli ... " + usage);
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static Version version(String epoch, String timestamp) {
    try {
      return new Version(Long.parseLong(epoch), Long.parseLong(timestamp));
    } catch (IllegalArgumentException e) {
      throw new Args.UsageException("a version is two non-negative integers: EPOCH TIMESTAMP");
    }
  }

  private static void print(PrintStream out, Optional<Versioned> v) {
    if (v.isEmpty()) {
      out.println("(absent)");
    } else {
      out.println(
          new String(v.get().value(), StandardCharsets.UTF_8) + "  @ version " + v.get().version());
    }
  }
}
