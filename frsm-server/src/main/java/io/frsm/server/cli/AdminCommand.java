package io.frsm.server.cli;

import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminRequest.ChangeMembership;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.proto.ClusterStatus;
import io.frsm.client.proto.NodeStatus;
import io.frsm.server.cli.AdminConnections.AdminException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code frsm admin}: an operator's commands to a running cluster over the client protocol (each
 * needs a certificate with the admin role, or a plaintext cluster). Exit codes: 0 done, 1 refused
 * by the cluster or no node answered (the reason is printed), 2 a bad command line.
 */
@Command(
    name = "admin",
    description = "Status, ring, membership changes and compactions of a running cluster.",
    synopsisSubcommandLabel = "COMMAND",
    footerHeading = "%n",
    footer = {
      "Each command needs the admin role (frsm certs client NAME --roles admin,...), or --insecure"
          + " for a plaintext cluster. A refused command prints the cluster's reason and exits 1.",
      "Membership changes: docs/OPERATIONS.md \"Membership changes\"."
    })
final class AdminCommand implements Runnable {
  private static final Duration POLL = Duration.ofMillis(500);

  @Mixin AdminOptions options;

  private final PrintStream out;

  AdminCommand(PrintStream out) {
    this.out = out;
  }

  @Override
  public void run() {
    throw new ParameterException(options.spec.commandLine(), "admin needs a command");
  }

  @Command(
      name = "status",
      description =
          "Per node: address, state (member, learner, joining candidate, retired, down), ranges"
              + " led, installed ring version, quarantined intervals, scrub; and the membership"
              + " change in progress.")
  int status(
      @Option(names = "--json", description = "One JSON object instead of a table.") boolean json) {
    return run(
        admin -> {
          AdminReport report = report(admin);
          out.println(json ? report.statusJson() : report.statusTable().stripTrailing());
          return 0;
        });
  }

  @Command(
      name = "ring",
      description =
          "Ring versions (newest, installed per node); per range: tokens, voters, learners.")
  int ring(
      @Option(names = "--json", description = "One JSON object instead of a table.") boolean json) {
    return run(
        admin -> {
          AdminReport report = new AdminReport(clusterView(admin).getValue(), Map.of());
          out.println(json ? report.ringJson() : report.ringTable().stripTrailing());
          return 0;
        });
  }

  @Command(
      name = "add-node",
      description =
          "Adds a node started with cluster.join: true (registered, not yet in the ring).")
  int addNode(@Parameters(paramLabel = "ID") int id, @Mixin WaitOptions wait) {
    return change(ChangeMembership.Kind.ADD, nodeId(id), 0, wait);
  }

  @Command(
      name = "decommission",
      description = "Moves a member's ranges to the others, then retires it (it may then stop).")
  int decommission(@Parameters(paramLabel = "ID") int id, @Mixin WaitOptions wait) {
    return change(ChangeMembership.Kind.DECOMMISSION, nodeId(id), 0, wait);
  }

  @Command(
      name = "replace",
      description = "A new node (started with cluster.join: true) takes a dead member's place.")
  int replace(
      @Parameters(paramLabel = "DEAD") int dead,
      @Option(names = "--with", paramLabel = "NEW", required = true) int replacement,
      @Mixin WaitOptions wait) {
    return change(ChangeMembership.Kind.REPLACE, nodeId(dead), nodeId(replacement), wait);
  }

  @Command(
      name = "cancel",
      description =
          "Cancels the membership change in progress before its point of no return (the version"
              + " that makes its new nodes voters): the ring goes back to the replica sets before it.")
  int cancel(@Mixin WaitOptions wait) {
    AdminRequest request =
        AdminRequest.newBuilder()
            .setCancelMembership(AdminRequest.CancelMembership.getDefaultInstance())
            .build();
    return run(
        admin -> {
          Map.Entry<InetSocketAddress, ClusterStatus> contact = clusterView(admin);
          AdminResponse answer = admin.ask(contact.getKey(), request);
          if (!answer.hasAccepted()) {
            out.println(refusal(answer));
            return 1;
          }
          out.println("accepted: " + AdminReport.clean(answer.getAccepted()));
          return wait.wait ? follow(admin, contact.getKey(), wait.timeout) : 0;
        });
  }

  @Command(
      name = "repair",
      description =
          "Repairs a node's quarantined storage now (it also asks by itself): it becomes a learner"
              + " of the damaged ranges, is settled, releases the quarantine, and votes again.")
  int repair(@Parameters(paramLabel = "ID") int id, @Mixin WaitOptions wait) {
    int node = nodeId(id);
    AdminRequest request =
        AdminRequest.newBuilder()
            .setChangeMembership(
                ChangeMembership.newBuilder().setKind(ChangeMembership.Kind.REPAIR).setNodeId(node))
            .build();
    return run(
        admin -> {
          Map.Entry<InetSocketAddress, ClusterStatus> contact = clusterView(admin);
          ClusterStatus.KnownNode target = null;
          for (ClusterStatus.KnownNode n : contact.getValue().getNodesList()) {
            if (n.getNodeId() == node) {
              target = n;
            }
          }
          if (target == null || target.getHost().isEmpty()) {
            out.println("refused: node " + node + (target == null ? " is not known" : " is down"));
            return 1;
          }
          // Asked of the damaged node itself: only it knows which ranges its quarantine touches.
          AdminResponse answer = admin.ask(address(target), request);
          if (!answer.hasAccepted()) {
            out.println(refusal(answer));
            return 1;
          }
          out.println("accepted: " + AdminReport.clean(answer.getAccepted()));
          return wait.wait ? follow(admin, contact.getKey(), wait.timeout) : 0;
        });
  }

  @Command(
      name = "compact",
      description = "Forces a major compaction of one node's tables, or all.")
  int compact(
      @Option(names = "--node", paramLabel = "ID", description = "This node only.") Integer node,
      @Option(names = "--all", description = "Every node, one after another.") boolean all) {
    if ((node == null) == !all) {
      throw new ParameterException(options.spec.commandLine(), "give --node ID or --all");
    }
    return run(
        admin -> {
          ClusterStatus view = clusterView(admin).getValue();
          int failed = 0;
          boolean named = false;
          for (ClusterStatus.KnownNode n : view.getNodesList()) {
            if (!all && n.getNodeId() != node) {
              continue;
            }
            named = true;
            if (n.getHost().isEmpty()) {
              out.println("node " + n.getNodeId() + ": down, not compacted");
              failed++;
              continue;
            }
            AdminResponse answer =
                admin.ask(
                    address(n),
                    AdminRequest.newBuilder()
                        .setCompact(AdminRequest.Compact.getDefaultInstance())
                        .build());
            if (answer.hasCompacted()) {
              out.println("node " + n.getNodeId() + ": compacted");
            } else {
              out.println("node " + n.getNodeId() + ": " + refusal(answer));
              failed++;
            }
          }
          if (!named) {
            out.println("refused: node " + node + " is not known to the cluster");
            return 1;
          }
          return failed == 0 ? 0 : 1;
        });
  }

  private int change(ChangeMembership.Kind kind, int node, int replacement, WaitOptions wait) {
    AdminRequest request =
        AdminRequest.newBuilder()
            .setChangeMembership(
                ChangeMembership.newBuilder()
                    .setKind(kind)
                    .setNodeId(node)
                    .setReplacementId(replacement))
            .build();
    return run(
        admin -> {
          Map.Entry<InetSocketAddress, ClusterStatus> contact = clusterView(admin);
          AdminResponse answer = admin.ask(contact.getKey(), request);
          if (!answer.hasAccepted()) {
            out.println(refusal(answer));
            return 1;
          }
          out.println("accepted: " + AdminReport.clean(answer.getAccepted()));
          return wait.wait ? follow(admin, contact.getKey(), wait.timeout) : 0;
        });
  }

  /** Polls the contact's status until no change is in progress; 1 if that takes past timeout. */
  private int follow(AdminConnections admin, InetSocketAddress contact, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String last = "";
    while (true) {
      ClusterStatus view = status(admin, contact);
      String step = view.getMembershipChange();
      if (step.isEmpty()) {
        out.println("done: ring version " + view.getNewestRingVersion());
        return 0;
      }
      if (!step.equals(last)) {
        out.println(
            "in progress: "
                + AdminReport.clean(step)
                + ", ring version "
                + view.getNewestRingVersion());
        last = step;
      }
      if (System.nanoTime() - deadline >= 0) {
        out.println("still in progress after " + timeout + ": follow it with frsm admin status");
        return 1;
      }
      LockSupport.parkNanos(POLL.toNanos()); // polling a remote status: there is nothing to wait on
    }
  }

  private AdminReport report(AdminConnections admin) {
    ClusterStatus view = clusterView(admin).getValue();
    Map<Integer, NodeStatus> reports = new HashMap<>();
    for (ClusterStatus.KnownNode n : view.getNodesList()) {
      if (n.getHost().isEmpty()) {
        continue;
      }
      try {
        reports.put(n.getNodeId(), status(admin, address(n)).getSelf());
      } catch (AdminException down) {
        // Shown as down.
      }
    }
    return new AdminReport(view, reports);
  }

  /**
   * The status of the first seed that serves (one that knows the ring), with its address; a seed
   * that does not serve yet (a joining node) is passed over unless none serves.
   */
  private Map.Entry<InetSocketAddress, ClusterStatus> clusterView(AdminConnections admin) {
    List<String> failures = new ArrayList<>();
    Map.Entry<InetSocketAddress, ClusterStatus> notServing = null;
    for (InetSocketAddress seed : options.nodes()) {
      try {
        ClusterStatus s = status(admin, seed);
        if (s.getRangesCount() > 0) {
          return Map.entry(seed, s);
        }
        notServing = notServing == null ? Map.entry(seed, s) : notServing;
      } catch (AdminException e) {
        failures.add(e.getMessage());
      }
    }
    if (notServing != null) {
      throw new AdminException(
          "no node that serves answered (node "
              + notServing.getValue().getSelf().getNodeId()
              + " does not serve yet)");
    }
    throw new AdminException("no node answered: " + String.join("; ", failures));
  }

  private static ClusterStatus status(AdminConnections admin, InetSocketAddress node) {
    AdminResponse answer =
        admin.ask(
            node,
            AdminRequest.newBuilder().setStatus(AdminRequest.Status.getDefaultInstance()).build());
    if (!answer.hasStatus()) {
      throw new AdminException(refusal(answer));
    }
    return answer.getStatus();
  }

  private static InetSocketAddress address(ClusterStatus.KnownNode n) {
    return new InetSocketAddress(n.getHost(), n.getClientPort());
  }

  private static String refusal(AdminResponse answer) {
    return answer.hasRefused()
        ? "refused: " + AdminReport.clean(answer.getRefused())
        : "unexpected answer: " + answer.getResultCase();
  }

  private int nodeId(int id) {
    if (id < 0) {
      throw new ParameterException(options.spec.commandLine(), "a node id is >= 0, not " + id);
    }
    return id;
  }

  private interface Action {
    int on(AdminConnections admin);
  }

  private int run(Action action) {
    try (AdminConnections admin = options.connect()) {
      return action.on(admin);
    } catch (AdminException e) {
      out.println("error: " + e.getMessage());
      return 1;
    }
  }

  /** --wait and its timeout, for the membership changes. */
  static final class WaitOptions {
    @Option(names = "--wait", description = "Follow the change until it is done.")
    boolean wait;

    @Option(
        names = "--timeout",
        paramLabel = "DURATION",
        defaultValue = "PT10M",
        description = "How long --wait follows it (ISO-8601, default: ${DEFAULT-VALUE}).")
    Duration timeout;
  }
}
