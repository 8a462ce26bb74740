package io.frsm.server.zk;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/**
 * Range terms and lease generations in ZooKeeper (docs/DESIGN.md "Lease invariant" rules 1–2).
 *
 * <ul>
 *   <li>{@link #bumpTerm}: one {@code multi}: set the term znode at its expected version (so two
 *       racing winners cannot both bump from the same term) and set the lease-generation znode at
 *       the version read, whose version therefore moves with every bump — revoking the predecessor.
 *       The generation read also says whether the predecessor marked its term released; the version
 *       check makes that answer part of the same atomic step.
 *   <li>{@link #markReleased}: the holder, handing its range over on purpose after its core ended
 *       the lease, writes the release mark into the lease generation at the version its grant set
 *       (so only while no successor bumped, and only once: the version moves).
 *   <li>{@link #renew} / {@link #renewAll}: one {@code multi(check(leasegen, version), ...)}:
 *       succeeds only while no successor bumped the generation. The caller computes {@code leaseEnd
 *       = sent + L·(1−ρ)} from the monotonic time it sent the request, never from when the answer
 *       arrived.
 * </ul>
 *
 * Thread-safe (stateless over a Curator client).
 */
public final class RangeTermStore {
  private final CuratorFramework zk;
  private final ZkLayout layout;
  private final LongSupplier monotonicNanos;

  public RangeTermStore(CuratorFramework zk, ZkLayout layout, LongSupplier monotonicNanos) {
    this.zk = zk;
    this.layout = layout;
    this.monotonicNanos = monotonicNanos;
  }

  /**
   * The range's current term and holder, or empty if nobody ever held it.
   *
   * @throws IllegalArgumentException if the term znode holds no term ({@link #decodeTerm})
   */
  public Optional<long[]> current(String rangeId) throws Exception {
    // Reads only, creates nothing: read-only identities (the CLI, clients) call it too.
    try {
      return decodeTerm(layout.term(rangeId), zk.getData().forPath(layout.term(rangeId)));
    } catch (KeeperException.NoNodeException neverHeld) {
      return Optional.empty();
    }
  }

  /** A term znode's data: empty (never bumped) or the term (u64) and its holder's node id (u32). */
  static final int TERM_BYTES = 12;

  /**
   * The term and holder in a term znode's {@code data}, or empty if nobody ever held the range.
   *
   * @throws IllegalArgumentException if {@code data} is no term a node writes: another length, a
   *     term below 1 or at the maximum (no successor could bump it), a negative holder. Nobody can
   *     lead the range until an operator repairs the znode (docs/OPERATIONS.md "ZooKeeper
   *     authentication"); the node keeps serving every other range.
   */
  static Optional<long[]> decodeTerm(String path, byte[] data) {
    if (data == null || data.length == 0) {
      return Optional.empty();
    }
    if (data.length != TERM_BYTES) {
      throw new IllegalArgumentException(
          "term znode " + path + " holds " + data.length + " bytes, not " + TERM_BYTES);
    }
    ByteBuffer b = ByteBuffer.wrap(data);
    long term = b.getLong();
    int holder = b.getInt();
    if (term < 1 || term == Long.MAX_VALUE || holder < 0) {
      throw new IllegalArgumentException(
          "term znode "
              + path
              + " holds term "
              + term
              + " and holder "
              + holder
              + ": a term is in [1, 2^63-2] and a holder >= 0");
    }
    return Optional.of(new long[] {term, holder});
  }

  /**
   * Bumps the range's term for {@code nodeId}. Returns empty if another node bumped it concurrently
   * (the caller lost; it must not act as holder).
   */
  public Optional<TermGrant> bumpTerm(String rangeId, int nodeId) throws Exception {
    return bumpTerm(rangeId, nodeId, null);
  }

  /**
   * As {@link #bumpTerm(String, int)}, in the same {@code multi} as a check that {@code
   * latchEntry}, the bumper's own latch entry, still exists (null: no such check). An entry that
   * exists and once led its latch leads it still (entries after it are numbered higher), so a
   * bumper that lost its entry — its session expired while it believed it led — cannot bump over a
   * holder whose entry lives: the session-backed lease relies on that (docs/PROTOCOL.md "Leases
   * backed by the session").
   *
   * @throws KeeperException.NoNodeException if {@code latchEntry} is gone
   */
  public Optional<TermGrant> bumpTerm(String rangeId, int nodeId, String latchEntry)
      throws Exception {
    ensure(rangeId);
    Stat termStat = new Stat();
    byte[] data = zk.getData().storingStatIn(termStat).forPath(layout.term(rangeId));
    long term = decodeTerm(layout.term(rangeId), data).map(t -> t[0]).orElse(0L);
    Stat generationStat = new Stat();
    byte[] generation =
        zk.getData().storingStatIn(generationStat).forPath(layout.leaseGeneration(rangeId));
    boolean predecessorReleased = term > 0 && releasedTerm(generation) == term;
    long next = term + 1;
    byte[] encoded = ByteBuffer.allocate(12).putLong(next).putInt(nodeId).array();
    long sent = monotonicNanos.getAsLong();
    CuratorOp setTerm =
        zk.transactionOp()
            .setData()
            .withVersion(termStat.getVersion())
            .forPath(layout.term(rangeId), encoded);
    CuratorOp bumpGeneration =
        zk.transactionOp()
            .setData()
            .withVersion(generationStat.getVersion())
            .forPath(layout.leaseGeneration(rangeId), encoded);
    List<CuratorOp> ops = new java.util.ArrayList<>(List.of(setTerm, bumpGeneration));
    if (latchEntry != null) {
      ops.add(zk.transactionOp().check().forPath(latchEntry));
    }
    try {
      List<CuratorTransactionResult> results = zk.transaction().forOperations(ops);
      int generationVersion = results.get(1).getResultStat().getVersion();
      return Optional.of(
          new TermGrant(rangeId, next, nodeId, generationVersion, sent, predecessorReleased));
    } catch (KeeperException.BadVersionException e) {
      return Optional.empty(); // a racing bump, or a release mark written since the read
    }
  }

  /**
   * Marks {@code grant}'s term released: only the core's clean answer to a release allows it
   * (Effect.LeaseReleased). False if a successor bumped the generation meanwhile (or this grant
   * already marked it): the mark is then not written and the next successor waits.
   */
  public boolean markReleased(TermGrant grant) throws Exception {
    byte[] mark =
        ByteBuffer.allocate(RELEASE_MARK_BYTES)
            .putLong(grant.term())
            .putInt(grant.holderNodeId())
            .put(RELEASED)
            .array();
    try {
      zk.setData()
          .withVersion(grant.leaseGenerationVersion())
          .forPath(layout.leaseGeneration(grant.rangeId()), mark);
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      return false;
    }
  }

  private static final int RELEASE_MARK_BYTES = 13;
  private static final byte RELEASED = 1;

  /** The term a lease generation's data marks released, or 0 if it carries no release mark. */
  static long releasedTerm(byte[] generation) {
    if (generation.length != RELEASE_MARK_BYTES || generation[12] != RELEASED) {
      return 0;
    }
    return ByteBuffer.wrap(generation).getLong();
  }

  /**
   * Renews a lease: true iff the lease generation is still the one {@code grant} set. {@code
   * sentNanos[0]} receives the monotonic time the request was sent.
   */
  public boolean renew(TermGrant grant, long[] sentNanos) throws Exception {
    sentNanos[0] = monotonicNanos.getAsLong();
    try {
      zk.transaction()
          .forOperations(
              zk.transactionOp()
                  .check()
                  .withVersion(grant.leaseGenerationVersion())
                  .forPath(layout.leaseGeneration(grant.rangeId())));
      return true;
    } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
      return false;
    }
  }

  /**
   * Renews many leases in one ZooKeeper {@code multi} of checks (one round trip per renewal period
   * for all of a node's ranges). A {@code multi} is all or nothing: when a check fails, the ranges
   * whose checks failed are reported false and the others are checked again without them, until one
   * {@code multi} succeeds or none is left. {@code sentNanos[0]} receives the monotonic send time
   * of the {@code multi} that succeeded (the renewal time of every range reported true).
   *
   * @return per grant, in order: whether its lease generation is still the grant's
   */
  public boolean[] renewAll(List<TermGrant> grants, long[] sentNanos) throws Exception {
    boolean[] renewed = new boolean[grants.size()];
    boolean[] failed = new boolean[grants.size()];
    while (true) {
      List<CuratorOp> checks = new java.util.ArrayList<>();
      List<Integer> index = new java.util.ArrayList<>();
      for (int i = 0; i < grants.size(); i++) {
        if (!failed[i]) {
          TermGrant g = grants.get(i);
          checks.add(
              zk.transactionOp()
                  .check()
                  .withVersion(g.leaseGenerationVersion())
                  .forPath(layout.leaseGeneration(g.rangeId())));
          index.add(i);
        }
      }
      if (checks.isEmpty()) {
        return renewed;
      }
      sentNanos[0] = monotonicNanos.getAsLong();
      try {
        zk.transaction().forOperations(checks);
        for (int i : index) {
          renewed[i] = true;
        }
        return renewed;
      } catch (KeeperException.BadVersionException | KeeperException.NoNodeException e) {
        List<OpResult> results = e.getResults();
        if (results == null || results.size() != checks.size()) {
          throw new IllegalStateException("a failed multi without per-check results", e);
        }
        boolean named = false;
        for (int k = 0; k < results.size(); k++) {
          if (results.get(k) instanceof OpResult.ErrorResult err
              && err.getErr() != KeeperException.Code.OK.intValue()
              && err.getErr() != KeeperException.Code.RUNTIMEINCONSISTENCY.intValue()) {
            failed[index.get(k)] = true;
            named = true;
          }
        }
        if (!named) {
          throw new IllegalStateException("a failed multi named no failed check", e);
        }
      }
    }
  }

  private void ensure(String rangeId) throws Exception {
    for (String path : new String[] {layout.term(rangeId), layout.leaseGeneration(rangeId)}) {
      if (zk.checkExists().forPath(path) == null) {
        try {
          zk.create()
              .creatingParentsIfNeeded()
              .withMode(CreateMode.PERSISTENT)
              .forPath(path, new byte[0]);
        } catch (KeeperException.NodeExistsException raced) {
          // Another node created it first: fine.
        }
      }
    }
  }
}
