package io.frsm.server.multiprocess;

import io.frsm.server.node.FaultControlFile;
import io.frsm.server.node.ZooKeeperProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Plays one {@link Fault} of the multi-process fault suite on the node processes: signals them,
 * writes their fault control files, blackholes their ZooKeeper proxies, and heals what it did. What
 * takes the suite's own state (letting the load run, a node's readiness, ZooKeeper itself) goes
 * through the {@link Harness}.
 */
final class FaultInjector {
  /** What the injector asks of the test. */
  interface Harness {
    /** Lets the load run for {@code d}. */
    void runFor(Duration d);

    /** Waits until a restarted node serves. */
    void awaitServing(NodeProcess n);

    /** Stops ZooKeeper for {@code down} and starts it again; says how long it was down. */
    String restartZooKeeper(Duration down) throws Exception;
  }

  private final List<NodeProcess> nodes;
  private final List<ZooKeeperProxy> proxies;
  private final List<Path> controls;
  private final Duration epsilon;
  private final Harness harness;

  /** How long the last fault's killed nodes took from their start to serving (zero: none). */
  private Duration lastRestart = Duration.ZERO;

  /**
   * Node {@code i + 1} is {@code nodes.get(i)}, behind {@code proxies.get(i)} and {@code
   * controls.get(i)}.
   */
  FaultInjector(
      List<NodeProcess> nodes,
      List<ZooKeeperProxy> proxies,
      List<Path> controls,
      Duration epsilon,
      Harness harness) {
    this.nodes = nodes;
    this.proxies = proxies;
    this.controls = controls;
    this.epsilon = epsilon;
    this.harness = harness;
  }

  /**
   * Injects {@code fault}, lets it last its length while the load runs, and heals it (restarted
   * nodes serve again before this returns). Returns which nodes it hit.
   */
  String inject(Fault fault, int leader) throws Exception {
    lastRestart = Duration.ZERO;
    int follower = others(leader).get(fault.pick() % 2);
    int[] peers = others(leader).stream().mapToInt(Integer::intValue).toArray();
    switch (fault.kind()) {
      case KILL_LEADER, KILL_FOLLOWER, KILL_TWO -> {
        List<NodeProcess> victims = new ArrayList<>();
        if (fault.kind() != Fault.Kind.KILL_FOLLOWER) {
          victims.add(node(leader));
        }
        if (fault.kind() != Fault.Kind.KILL_LEADER) {
          victims.add(node(follower));
        }
        for (NodeProcess v : victims) {
          v.kill(Duration.ofSeconds(10));
        }
        harness.runFor(fault.length());
        long restart = System.nanoTime();
        for (NodeProcess v : victims) {
          v.start();
        }
        for (NodeProcess v : victims) {
          harness.awaitServing(v);
        }
        lastRestart = Duration.ofNanos(System.nanoTime() - restart);
        return victims.stream().map(v -> "node " + v.nodeId()).toList().toString();
      }
      case PAUSE_LEADER -> {
        node(leader).pause();
        try {
          harness.runFor(fault.length());
        } finally {
          node(leader).resume();
        }
        return "node " + leader;
      }
      case PARTITION_PAIR -> {
        control(leader, "dropTo " + follower + "\ndropFrom " + follower);
        control(follower, "dropTo " + leader + "\ndropFrom " + leader);
        harness.runFor(fault.length());
        control(leader, "");
        control(follower, "");
        return "nodes " + leader + " and " + follower;
      }
      case ISOLATE_LEADER, ONE_WAY_LEADER -> {
        String to = "dropTo " + peers[0] + " " + peers[1];
        String from = "dropFrom " + peers[0] + " " + peers[1];
        String cut =
            fault.kind() == Fault.Kind.ISOLATE_LEADER
                ? to + "\n" + from
                : (fault.pick() % 2 == 0 ? to : from);
        control(leader, cut);
        harness.runFor(fault.length());
        control(leader, "");
        return "node " + leader + " (" + cut.replace('\n', ',') + ")";
      }
      case CUT_LEADER_FROM_ZOOKEEPER -> {
        proxies.get(leader - 1).blackhole();
        try {
          harness.runFor(fault.length());
        } finally {
          proxies.get(leader - 1).restore();
        }
        return "node " + leader;
      }
      case RESTART_ZOOKEEPER -> {
        return harness.restartZooKeeper(fault.length());
      }
      case SKEW_WITHIN_EPSILON, SKEW_BEYOND_EPSILON -> {
        int victim = fault.pick() % nodes.size() + 1;
        long epsilon = this.epsilon.toMillis();
        long size =
            fault.kind() == Fault.Kind.SKEW_WITHIN_EPSILON
                ? 50 + fault.pick() % (epsilon - 100)
                : 2 * epsilon + fault.pick() % (2 * epsilon);
        long offset = (fault.pick() / 7) % 2 == 0 ? size : -size;
        control(victim, "clockOffset " + offset);
        harness.runFor(fault.length());
        control(victim, "");
        return "node " + victim + " (clock " + offset + " ms)";
      }
    }
    throw new AssertionError(fault.kind());
  }

  Duration lastRestart() {
    return lastRestart;
  }

  private void control(int nodeId, String faults) throws Exception {
    FaultControlFile.write(controls.get(nodeId - 1), faults);
  }

  private NodeProcess node(int nodeId) {
    return nodes.get(nodeId - 1);
  }

  private List<Integer> others(int nodeId) {
    List<Integer> ids = new ArrayList<>();
    for (int id = 1; id <= nodes.size(); id++) {
      if (id != nodeId) {
        ids.add(id);
      }
    }
    return ids;
  }
}
