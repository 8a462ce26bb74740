package io.frsm.server.membership;

import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Every node's readiness to orchestrate: while a membership change is stored, the node competes for
 * the cluster's orchestrator lock and, holding it, runs the change ({@link
 * MembershipOrchestrator#runPending}). If the orchestrating node dies, its lock goes with its
 * session and another node's agent resumes the change from the history. While it orchestrates, the
 * node names itself in the ephemeral {@code membership/orchestrator} znode (for status). Once after
 * its start, while no change is stored, it removes the settle and copy requests older changes left
 * ({@link MembershipOrchestrator#removeLeftovers}).
 *
 * <p>Failures (a wait that timed out, ZooKeeper errors) are logged and the run is tried again: the
 * steps are idempotent. Thread-safety: its own thread; {@link #close} from any thread.
 */
public final class MembershipAgent implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(MembershipAgent.class.getName());
  private static final long CHECK_MILLIS = 500;

  private final int self;
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final MembershipOrchestrator orchestrator;
  private final ScheduledExecutorService thread;
  private volatile boolean swept; // written by the agent's thread only

  public MembershipAgent(
      int self, CuratorFramework zk, ZkLayout layout, MembershipOrchestrator orchestrator) {
    this.self = self;
    this.zk = zk;
    this.layout = layout;
    this.orchestrator = orchestrator;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-" + self + "-membership");
              t.setDaemon(true);
              return t;
            });
  }

  public void start() {
    thread.scheduleWithFixedDelay(this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void check() {
    try {
      if (orchestrator.pending() == null) {
        if (!swept) {
          // Once per start: what a crash between a change's end and its cleanup left behind.
          int removed = orchestrator.removeLeftovers();
          swept = true;
          if (removed > 0) {
            LOG.log(Level.INFO, "node {0} removed {1} old settle and copy requests", self, removed);
          }
        }
        return;
      }
      orchestrator.runPending(this::orchestrating);
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      LOG.log(
          Level.WARNING,
          "node " + self + ": the membership change did not finish, trying again: " + e);
    }
  }

  /** Names this node as the orchestrator (ephemeral: gone with its session). */
  private void orchestrating() throws Exception {
    byte[] id = Integer.toString(self).getBytes(StandardCharsets.UTF_8);
    try {
      zk.delete().forPath(layout.membershipOrchestrator());
    } catch (KeeperException.NoNodeException none) {
      // Nobody named: the usual case.
    }
    zk.create()
        .creatingParentContainersIfNeeded()
        .withMode(CreateMode.EPHEMERAL)
        .forPath(layout.membershipOrchestrator(), id);
  }

  /** Whether the sweep of older changes' requests ran since the start (tests). */
  public boolean swept() {
    return swept;
  }

  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
