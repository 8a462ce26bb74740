package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import java.util.HashSet;
import java.util.Set;

/**
 * A run's ballot bookkeeping for its key: the highest round and epoch it saw in its local cell and
 * its replicas' replies, and the ballots it prepared itself. Its own ballots never count as seen,
 * so a run's next prepare outbids the others, not itself over and over.
 *
 * <p>Not thread-safe: owned by one {@link Run}.
 */
final class BallotsSeen {
  private final Set<Ballot> own = new HashSet<>();

  /** Highest ballot round seen for the key, ignoring this run's own ballots. */
  private long highestRound;

  /** Highest epoch seen for the key. */
  private long highestEpoch;

  private Ballot lastPrepared = Ballot.NONE;

  /** Learns the rounds and epoch of this node's durable cell. */
  void learn(Cell local) {
    learn(local.effectivePromise());
    learn(local.accepted());
  }

  /** Learns the ballots and epoch a replica's reply carries. */
  void learn(Message.Reply reply) {
    if (reply instanceof Message.Promise p) {
      learn(p.previous());
      learn(p.accepted());
    } else if (reply instanceof Message.Reject j) {
      learn(j.promised());
      learn(j.accepted());
    } else if (reply instanceof Message.ReadReply rr) {
      learn(rr.promised());
      learn(rr.accepted());
    }
  }

  private void learn(Ballot b) {
    if (!b.isNone() && !own.contains(b)) {
      highestRound = Math.max(highestRound, b.round());
    }
  }

  private void learn(AcceptedValue a) {
    if (a != null) {
      highestEpoch = Math.max(highestEpoch, a.epoch());
      learn(a.accepted());
    }
  }

  /**
   * The round of the next prepare: the wall clock, unless a round seen or this run's last prepare
   * is not below it (then one above the highest of them).
   */
  long nextRound(long wallMicros) {
    long r = Math.max(wallMicros, highestRound + 1);
    return Math.max(r, lastPrepared.round() + 1);
  }

  /** The run prepares {@code ballot}: its own from now on, and the one cold proposals carry. */
  void prepared(Ballot ballot) {
    own.add(ballot);
    lastPrepared = ballot;
  }

  /** The ballot of the run's last prepare ({@link Ballot#NONE} before its first). */
  Ballot lastPrepared() {
    return lastPrepared;
  }

  /**
   * Whether the last prepared ballot may open a new epoch at {@code (round, 0)}: its round is above
   * every other round and every epoch seen, so competing creates and fences are ordered by ballot
   * and a new epoch sits above every old one.
   */
  boolean lastPreparedOpensEpoch() {
    long r = lastPrepared.round();
    return r > highestRound && r > highestEpoch;
  }
}
