package io.frsm.server.membership;

import io.frsm.consensus.core.RingTransition;
import io.frsm.server.membership.MembershipChange.Kind;
import io.frsm.server.zk.RingHistory;
import io.frsm.server.zk.RingVersion;
import io.frsm.server.zk.ZkLayout;
import java.lang.System.Logger.Level;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;

/**
 * An operator's cancel of the stored membership change (docs/PROTOCOL.md "Membership changes",
 * "Cancel"; {@code frsm admin cancel}). The <b>point of no return</b> is the publication of the
 * change's second ring version for an add, decommission or replace (the one that makes the incoming
 * nodes voters), of its first for a repair (the one that demotes the repaired node: promoting it
 * back unsettled is not this change's to decide). Before it, a cancel publishes the reverse step —
 * the base version's replica sets again, learners gone, retired ids kept — or, if nothing was
 * published yet, just ends the change. After it, the cancel is refused and the change runs to its
 * end.
 *
 * <p>The operator's side only stores the wish ({@code membership/cancel}, the change's bytes, so a
 * cancel never applies to a later change); the orchestrator holding the lock decides, before it
 * publishes each version and while it waits for installations and copies ({@link #endIfAsked}). A
 * cancel that meets a change past the point (a race with the promotion) is removed with a log.
 *
 * <p>Thread-safety: {@link #ask} from any thread; {@link #endIfAsked} by the lock's holder.
 */
final class ChangeCancel {
  private static final System.Logger LOG = System.getLogger(ChangeCancel.class.getName());

  /** Waits until the quorums of a published step installed it. */
  @FunctionalInterface
  interface InstallWait {
    void await(RingTransition t) throws Exception;
  }

  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final RingHistory history;
  private final RingVersion initial;

  ChangeCancel(CuratorFramework zk, ZkLayout layout, RingHistory history, RingVersion initial) {
    this.zk = zk;
    this.layout = layout;
    this.history = history;
    this.initial = initial;
  }

  /** The ring version whose publication makes {@code change} irreversible. */
  static long pointOfNoReturn(MembershipChange change) {
    return change.baseVersion() + (change.kind() == Kind.REPAIR ? 1 : 2);
  }

  /**
   * Stores the wish to cancel {@code change}.
   *
   * @throws IllegalStateException if the change is past its point of no return (the message says so
   *     and what happens instead)
   */
  void ask(MembershipChange change) throws Exception {
    history.sync();
    long newest = history.newest(initial).version();
    refuseIfPast(change, newest);
    try {
      zk.create()
          .creatingParentContainersIfNeeded()
          .forPath(layout.membershipCancel(), change.encode());
    } catch (KeeperException.NodeExistsException again) {
      zk.setData().forPath(layout.membershipCancel(), change.encode());
    }
    LOG.log(Level.INFO, "cancel of {0} requested", change);
  }

  static void refuseIfPast(MembershipChange change, long newest) {
    long point = pointOfNoReturn(change);
    if (newest >= point) {
      throw new IllegalStateException(
          "cannot cancel "
              + change
              + ": ring version "
              + point
              + " is published, the point of no return"
              + (change.kind() == Kind.REPAIR
                  ? " (the node is demoted until its repair finishes)"
                  : " (the incoming nodes vote)")
              + "; the change runs to its end; undo it with the opposite change afterwards");
    }
  }

  /** Whether a cancel of exactly {@code change} is stored. */
  boolean asked(MembershipChange change) throws Exception {
    try {
      byte[] data = zk.getData().forPath(layout.membershipCancel());
      return java.util.Arrays.equals(data, change.encode());
    } catch (KeeperException.NoNodeException none) {
      return false;
    }
  }

  /**
   * Removes the ended change and its cancel in one transaction: a crash between the two would leave
   * a cancelled change stored without its cancel, which the next orchestrator would find published
   * past by a version it does not plan.
   */
  void removeWithChange() throws Exception {
    if (zk.checkExists().forPath(layout.membershipCancel()) != null) {
      try {
        zk.transaction()
            .forOperations(
                zk.transactionOp().delete().forPath(layout.membershipChange()),
                zk.transactionOp().delete().forPath(layout.membershipCancel()));
        return;
      } catch (KeeperException.NoNodeException cancelGone) {
        // The cancel went meanwhile (withdrawn as too late): remove the change alone.
      }
    }
    zk.delete().forPath(layout.membershipChange());
  }

  /** Removes the stored cancel, if any. */
  void clear() throws Exception {
    try {
      zk.delete().forPath(layout.membershipCancel());
    } catch (KeeperException.NoNodeException none) {
      // Nothing asked.
    }
  }

  /**
   * Ends {@code change} if a cancel of it is stored and it has not reached its point of no return:
   * publishes the reverse step if the learner version is out, and waits for its installation.
   * Resumes a cancel whose reverse step was published before a crash. A cancel found past the point
   * is removed (logged). REQUIRES: the orchestrator lock is held.
   *
   * @return true if the change is over (cancelled); false if it goes on
   */
  boolean endIfAsked(MembershipChange change, InstallWait installed) throws Exception {
    if (!asked(change)) {
      return false;
    }
    history.sync();
    List<RingVersion> all = history.read(initial, null);
    long base = change.baseVersion();
    RingVersion newest = all.get(all.size() - 1);
    long point = pointOfNoReturn(change);
    if (newest.version() == base) {
      LOG.log(Level.INFO, "{0} cancelled before its first ring version", change);
      return true;
    }
    RingVersion baseEntry = all.get((int) base);
    if (newest.version() < point) {
      RingVersion reverse = reverse(baseEntry, newest);
      RingTransition t = RingHistory.checkStep(newest, reverse);
      if (!history.publish(newest, reverse)) {
        throw new IllegalStateException(
            "ring version " + reverse.version() + " was published by another orchestrator");
      }
      installed.await(t);
      LOG.log(
          Level.INFO,
          "{0} cancelled: ring version {1} restores the replica sets of version {2}",
          change,
          reverse.version(),
          base);
      return true;
    }
    if (newest.version() == point
        && change.kind() != Kind.REPAIR
        && newest.equals(reverse(baseEntry, all.get((int) point - 1)))) {
      installed.await(RingHistory.checkStep(all.get((int) point - 1), newest)); // resumed
      return true;
    }
    LOG.log(
        Level.WARNING,
        "the cancel of {0} came after ring version {1}, its point of no return: the change runs"
            + " to its end",
        change,
        point);
    clear();
    return false;
  }

  /** The base's replica sets at the version after {@code published}, its retired ids kept. */
  private static RingVersion reverse(RingVersion base, RingVersion published) {
    return new RingVersion(
        base.placement().atVersion(published.version() + 1), published.retired());
  }
}
