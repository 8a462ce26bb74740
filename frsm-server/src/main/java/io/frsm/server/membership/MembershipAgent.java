package io.frsm.server.membership;

import io.frsm.server.zk.RingVersion;
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
  private volatile boolean retired; // written by the agent's thread only; never reset

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
    if (retired) {
      return;
    }
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
      if (retiredNow()) {
        return;
      }
      orchestrator.runPending(this::orchestrating);
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
    } catch (RetiredException refused) {
      // Logged by retiredNow; the lock was released unused.
    } catch (Exception e) {
      LOG.log(
          Level.WARNING,
          "node " + self + ": the membership change did not finish, trying again: " + e);
    }
  }

  /**
   * Whether this node's id is retired in the newest ring version; if so, from now on the agent does
   * nothing (retirement is for good: docs/PROTOCOL.md rule 3). A retired node that keeps running
   * still holds a ZooKeeper session and could win the lock, but it is no member: it must not
   * publish versions, ask settles and copies, or remove requests for the cluster. Logged once.
   */
  private boolean retiredNow() throws Exception {
    RingVersion newest = orchestrator.newest();
    if (!newest.retired().contains(self)) {
      return false;
    }
    retired = true;
    LOG.log(
        Level.WARNING,
        "node {0} is retired (ring version {1}): it refuses to orchestrate membership changes;"
            + " stop it (a retired id never takes part again)",
        self,
        newest.version());
    return true;
  }

  /** Refused with the lock held: this node was retired while it waited for the lock. */
  private static final class RetiredException extends Exception {
    private static final long serialVersionUID = 1L;
  }

  /**
   * Names this node as the orchestrator (ephemeral: gone with its session), once the lock is held;
   * a node retired while it waited for the lock refuses here, before it runs anything.
   */
  private void orchestrating() throws Exception {
    if (retiredNow()) {
      throw new RetiredException();
    }
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

  /** Whether this node found itself retired and stopped orchestrating (tests). */
  public boolean refusesAsRetired() {
    return retired;
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
