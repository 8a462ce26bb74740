package io.frsm.server.admin;

import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminRequest.ChangeMembership;
import io.frsm.client.proto.AdminResponse;
import io.frsm.server.membership.MembershipChange;
import io.frsm.server.membership.MembershipOrchestrator;
import io.frsm.transport.ClientProtocolServer;
import java.lang.System.Logger.Level;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Answers admin commands for one node. Commands read and write ZooKeeper and may wait, so they run
 * on one admin thread of their own, never on the event loop that received them; at most {@link
 * #QUEUED} wait for it, and a command beyond that is refused (busy), so a flood of commands cannot
 * hold memory or threads. The thread exits when idle, so nothing needs closing. Every field of a
 * command is checked here: the transport passes it as the client sent it. Thread-safe.
 */
public final class NodeAdmin implements ClientProtocolServer.AdminHandler {
  private static final System.Logger LOG = System.getLogger(NodeAdmin.class.getName());
  static final int QUEUED = 16;
  // A major compaction of a large node takes minutes; the admin thread waits for no longer.
  private static final long COMPACT_WAIT_MINUTES = 30;

  private final AdminSite site;
  private final ThreadPoolExecutor thread;

  public NodeAdmin(AdminSite site) {
    this.site = site;
    this.thread =
        new ThreadPoolExecutor(
            1,
            1,
            30,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(QUEUED),
            r -> {
              Thread t = new Thread(r, "frsm-node-" + site.nodeId() + "-admin");
              t.setDaemon(true);
              return t;
            });
    thread.allowCoreThreadTimeOut(true);
  }

  @Override
  public CompletableFuture<AdminResponse> handle(AdminRequest request) {
    try {
      return CompletableFuture.supplyAsync(() -> answer(request), thread);
    } catch (RejectedExecutionException busy) {
      return CompletableFuture.completedFuture(
          refused("node " + site.nodeId() + " is busy with " + QUEUED + " admin commands"));
    }
  }

  private AdminResponse answer(AdminRequest request) {
    try {
      return switch (request.getCommandCase()) {
        case STATUS -> AdminResponse.newBuilder().setStatus(StatusReport.of(site)).build();
        case CHANGE_MEMBERSHIP -> change(request.getChangeMembership());
        case COMPACT -> compact();
        case CANCEL_MEMBERSHIP -> cancel();
        case COMMAND_NOT_SET -> refused("an admin request needs a command");
      };
    } catch (IllegalArgumentException | IllegalStateException e) {
      // Refusals an operator can act on: unsafe or unknown change, one in progress, not serving.
      return refused(e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return refused("interrupted");
    } catch (Exception e) {
      LOG.log(Level.WARNING, "admin command failed: " + request.getCommandCase(), e);
      return refused("failed: " + e);
    }
  }

  private AdminResponse change(ChangeMembership c) throws Exception {
    MembershipChange.Kind kind =
        switch (c.getKind()) {
          case ADD -> MembershipChange.Kind.ADD;
          case DECOMMISSION -> MembershipChange.Kind.DECOMMISSION;
          case REPLACE -> MembershipChange.Kind.REPLACE;
          case REPAIR -> MembershipChange.Kind.REPAIR;
          case KIND_UNSPECIFIED, UNRECOGNIZED -> null;
        };
    if (kind == null) {
      return refused("a membership change needs a kind: add, decommission, replace or repair");
    }
    if (kind == MembershipChange.Kind.REPAIR) {
      return repair(c);
    }
    int node = nodeId("node_id", c.getNodeId());
    int replacement = -1;
    if (kind == MembershipChange.Kind.REPLACE) {
      replacement = nodeId("replacement_id", c.getReplacementId());
    } else if (c.getReplacementId() != 0) {
      return refused("replacement_id is for a replace only");
    }
    MembershipOrchestrator orchestrator = site.orchestrator();
    if (orchestrator == null) {
      return refused("node " + site.nodeId() + " does not serve yet: ask another node");
    }
    MembershipChange stored = orchestrator.request(kind, node, replacement);
    return AdminResponse.newBuilder().setAccepted(stored.toString()).build();
  }

  /**
   * Only the damaged node knows which ranges its quarantine touches, so a repair is asked of that
   * node itself; it stores the change as its own repair agent would.
   */
  private AdminResponse repair(ChangeMembership c) throws Exception {
    int node = nodeId("node_id", c.getNodeId());
    if (c.getReplacementId() != 0) {
      return refused("replacement_id is for a replace only");
    }
    if (node != site.nodeId()) {
      return refused(
          "node "
              + site.nodeId()
              + " cannot repair node "
              + node
              + ": a repair is asked of the damaged node itself");
    }
    MembershipChange stored = site.requestRepair();
    return AdminResponse.newBuilder().setAccepted(stored.toString()).build();
  }

  private AdminResponse cancel() throws Exception {
    MembershipOrchestrator orchestrator = site.orchestrator();
    if (orchestrator == null) {
      return refused("node " + site.nodeId() + " does not serve yet: ask another node");
    }
    MembershipChange cancelled = orchestrator.cancel();
    return AdminResponse.newBuilder()
        .setAccepted(
            "cancel of "
                + cancelled
                + " requested: the orchestrator undoes it; `frsm admin status` shows no change"
                + " once it is over")
        .build();
  }

  private AdminResponse compact() throws Exception {
    site.compact().get(COMPACT_WAIT_MINUTES, TimeUnit.MINUTES);
    return AdminResponse.newBuilder()
        .setCompacted(AdminResponse.Compacted.newBuilder().setNodeId(site.nodeId()))
        .build();
  }

  /** A uint32 from the wire as an id 0 ..= 2^31-1 (Java reads a larger one as negative). */
  private static int nodeId(String field, int wire) {
    if (wire < 0) {
      throw new IllegalArgumentException(
          field
              + " "
              + Integer.toUnsignedString(wire)
              + " is out of range 0.."
              + Integer.MAX_VALUE);
    }
    return wire;
  }

  private static AdminResponse refused(String reason) {
    return AdminResponse.newBuilder().setRefused(reason == null ? "refused" : reason).build();
  }
}
