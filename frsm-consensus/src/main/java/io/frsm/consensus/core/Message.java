package io.frsm.consensus.core;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import java.util.Objects;

/**
 * The peer messages of per-key Paxos (docs/PROTOCOL.md "Messages"). Requests go from a coordinator
 * to the acceptors of the key's replica set, the coordinator's own included; replies go back to the
 * sender. Every reply describes durable state of the replying acceptor.
 *
 * <p>Every request, and a purge, carries a ring version: the version of the replica set the sender
 * counts its quorum over ({@link Placement#ringVersion}). A replica refuses one older than the
 * version at which the range's set last changed for it ({@link StaleRing}; docs/PROTOCOL.md
 * "Membership changes"). The constructors without it send version 0, a cluster that never changed.
 * A message at version 0 prints as it did before versions existed (the simulator's trace hash mixes
 * effects' text, and runs without membership changes keep their hashes).
 */
public sealed interface Message {
  Key key();

  /** A request that an acceptor answers; {@link #round()} is echoed in the reply. */
  sealed interface Request extends Message {
    RoundId round();

    /** The ring version of the replica set the sender counts this round's quorum over. */
    long ringVersion();
  }

  /** A reply to the coordinator round {@link #round()}. */
  sealed interface Reply extends Message {
    RoundId round();
  }

  /**
   * Phase 1: promise not to accept below {@code ballot}. {@code term} is the sender's term for the
   * key's range (0 with leases off); an acceptor that persisted a higher one refuses.
   */
  record Prepare(Key key, RoundId round, Ballot ballot, long term, long ringVersion)
      implements Request {
    public Prepare {
      Objects.requireNonNull(key);
      if (ballot.isNone() || term < 0 || ringVersion < 0) {
        throw new IllegalArgumentException(
            "prepare needs a real ballot, a term >= 0 and a ring version >= 0");
      }
    }

    /** At ring version 0. */
    public Prepare(Key key, RoundId round, Ballot ballot, long term) {
      this(key, round, ballot, term, 0);
    }

    /** Without a range term (leases off), at ring version 0. */
    public Prepare(Key key, RoundId round, Ballot ballot) {
      this(key, round, ballot, 0);
    }

    @Override
    public String toString() {
      return "Prepare[key="
          + key
          + ", round="
          + round
          + ", ballot="
          + ballot
          + ", term="
          + term
          + versionSuffix(ringVersion)
          + "]";
    }
  }

  /**
   * Phase 2: accept {@code proposal}, whose accepted ballot is the proposer's ballot. {@code term}
   * as in {@link Prepare}.
   */
  record Accept(Key key, RoundId round, AcceptedValue proposal, long term, long ringVersion)
      implements Request {
    public Accept {
      Objects.requireNonNull(key);
      if (proposal.chosen() || term < 0 || ringVersion < 0) {
        throw new IllegalArgumentException(
            "a proposal is never marked chosen; term >= 0, ring version >= 0");
      }
    }

    /** At ring version 0. */
    public Accept(Key key, RoundId round, AcceptedValue proposal, long term) {
      this(key, round, proposal, term, 0);
    }

    /** Without a range term (leases off), at ring version 0. */
    public Accept(Key key, RoundId round, AcceptedValue proposal) {
      this(key, round, proposal, 0);
    }

    public Ballot ballot() {
      return proposal.accepted();
    }

    @Override
    public String toString() {
      return "Accept[key="
          + key
          + ", round="
          + round
          + ", proposal="
          + proposal
          + ", term="
          + term
          + versionSuffix(ringVersion)
          + "]";
    }
  }

  /**
   * A new range holder persists its term {@code term} for range {@code range} (docs/DESIGN.md
   * "Lease invariant" rule 4). {@code key} is the range's reserved cell ({@link
   * RangeTerm#cellKey}). The acceptor answers {@link TermPersisted} once the term is durable and
   * every prepare or accept of the range it took under an older term is durable too.
   */
  record TermPersist(
      Key key, RoundId round, int range, long term, long ringVersion, long floorRound)
      implements Request {
    /**
     * {@code floorRound}: the round every ballot of the sender in this term is at or above
     * (docs/PROTOCOL.md "A killed holder: covering its term"); 0: none (hand-offs off, or an older
     * sender), and then the replica keeps no record of the term.
     */
    public TermPersist {
      if (!key.equals(RangeTerm.cellKey(range)) || term < 1 || ringVersion < 0 || floorRound < 0) {
        throw new IllegalArgumentException(
            "term persist for range "
                + range
                + " term "
                + term
                + " ring version "
                + ringVersion
                + " floor "
                + floorRound);
      }
    }

    /** Without a floor. */
    public TermPersist(Key key, RoundId round, int range, long term, long ringVersion) {
      this(key, round, range, term, ringVersion, 0);
    }

    /** At ring version 0. */
    public TermPersist(Key key, RoundId round, int range, long term) {
      this(key, round, range, term, 0);
    }

    @Override
    public String toString() {
      return "TermPersist[key="
          + key
          + ", round="
          + round
          + ", range="
          + range
          + ", term="
          + term
          + versionSuffix(ringVersion)
          + (floorRound == 0 ? "" : ", floor=" + floorRound)
          + "]";
    }
  }

  /**
   * The replica durably holds a term of at least {@code term} for the range of {@code key}, and, if
   * it knows it, {@code previous}: the record of the term it held before this one (null: none
   * known; docs/PROTOCOL.md "A killed holder: covering its term").
   */
  record TermPersisted(Key key, RoundId round, long term, TermRecord previous) implements Reply {
    public TermPersisted(Key key, RoundId round, long term) {
      this(key, round, term, null);
    }

    @Override
    public String toString() {
      return "TermPersisted[key="
          + key
          + ", round="
          + round
          + ", term="
          + term
          + (previous == null ? "" : ", previous=" + previous)
          + "]";
    }
  }

  /**
   * The replica refused a prepare, accept or term persist: it persisted {@code term} for the range,
   * above the sender's. The sender's term, and with it its lease, is over.
   */
  record StaleTerm(Key key, RoundId round, long term) implements Reply {}

  /**
   * A range holder in term {@code term} asks for the client keys the replica holds with {@code
   * fromToken <= token <= toToken} after {@code after} ((token, key) order; null: from the start),
   * at most {@code limit} of them (docs/DESIGN.md "Lease invariant" rule 5, the scan). {@code key}
   * is the range's reserved cell ({@link RangeTerm#cellKey}). The replica first persists {@code
   * term} exactly as for {@link TermPersist} (refusing with {@link StaleTerm} if it holds a higher
   * one) and lists only once every persist of the range it took under an older term is durable: the
   * listings of any {@code q} replicas then hold every key whose value was chosen before.
   *
   * <p>{@code term} 0: the listing of a settle at ring version {@code ringVersion}
   * (docs/PROTOCOL.md "Membership changes"). No term is persisted; the replica answers only once it
   * installed that very version (else {@link StaleRing} with its own), and only once every persist
   * of the range it already took is durable: from then on it refuses every request of an older
   * version, so nothing it lists can be outdated by an older round afterwards.
   */
  record ListKeys(
      Key key,
      RoundId round,
      int range,
      long term,
      long fromToken,
      long toToken,
      Key after,
      int limit,
      long ringVersion)
      implements Request {
    /** At ring version 0. */
    public ListKeys(
        Key key,
        RoundId round,
        int range,
        long term,
        long fromToken,
        long toToken,
        Key after,
        int limit) {
      this(key, round, range, term, fromToken, toToken, after, limit, 0);
    }

    /** Whether this is a settle's listing (no term), not a lease holder's scan. */
    public boolean settle() {
      return term == 0;
    }

    @Override
    public String toString() {
      return "ListKeys[key="
          + key
          + ", round="
          + round
          + ", range="
          + range
          + ", term="
          + term
          + ", fromToken="
          + fromToken
          + ", toToken="
          + toToken
          + ", after="
          + after
          + ", limit="
          + limit
          + versionSuffix(ringVersion)
          + "]";
    }

    public ListKeys {
      if (!key.equals(RangeTerm.cellKey(range))
          || term < 0
          || ringVersion < 0
          || fromToken > toToken
          || limit < 1) {
        throw new IllegalArgumentException(
            "list keys of range "
                + range
                + " term "
                + term
                + " tokens ["
                + fromToken
                + ", "
                + toToken
                + "] limit "
                + limit);
      }
      if (after != null && (after.token() < fromToken || after.token() > toToken)) {
        throw new IllegalArgumentException("cursor " + after + " outside the listed tokens");
      }
    }
  }

  /**
   * The replica's answer to {@link ListKeys}: client keys in (token, key) order after the cursor;
   * {@code more} if it stopped at the limit (the last key is then the next cursor).
   */
  record KeysListed(Key key, RoundId round, java.util.List<Key> keys, boolean more)
      implements Reply {
    public KeysListed {
      keys = java.util.List.copyOf(keys);
      if (more && keys.isEmpty()) {
        throw new IllegalArgumentException("a listing that stopped early names its last key");
      }
    }
  }

  /** Asks for the replica's clock and value. */
  record Read(Key key, RoundId round, long ringVersion) implements Request {
    public Read {
      if (ringVersion < 0) {
        throw new IllegalArgumentException("ring version >= 0: " + ringVersion);
      }
    }

    /** At ring version 0. */
    public Read(Key key, RoundId round) {
      this(key, round, 0);
    }

    @Override
    public String toString() {
      return "Read[key=" + key + ", round=" + round + versionSuffix(ringVersion) + "]";
    }
  }

  /**
   * Learn: {@code chosen} is the consensus value of its instance. Merged whatever the replica
   * promised; never answered (a lost commit costs a later quorum read, not safety).
   */
  record Commit(Key key, AcceptedValue chosen) implements Message {
    public Commit {
      if (!chosen.chosen()) {
        throw new IllegalArgumentException("commit carries a chosen value");
      }
    }
  }

  /**
   * Delete phase 2 (docs/PROTOCOL.md "Delete phase 2"): every replica of the key durably holds the
   * delete named by {@code mark}. Merged (max) whatever the replica promised; never answered.
   */
  record Purge(Key key, PurgeMark mark, long ringVersion) implements Message {
    public Purge {
      Objects.requireNonNull(key);
      Objects.requireNonNull(mark);
      if (ringVersion < 0) {
        throw new IllegalArgumentException("ring version >= 0: " + ringVersion);
      }
    }

    /** At ring version 0. */
    public Purge(Key key, PurgeMark mark) {
      this(key, mark, 0);
    }

    @Override
    public String toString() {
      return "Purge[key=" + key + ", mark=" + mark + versionSuffix(ringVersion) + "]";
    }
  }

  /**
   * The replica refused a request of an older ring version than the one at which the range's
   * replica set last changed for it, or a settle's listing of a version it has not installed:
   * {@code ringVersion} is the version the replica installed. Never an acknowledgement: the sender
   * counts it as a refusal, and if {@code ringVersion} is above its own, it is behind.
   */
  record StaleRing(Key key, RoundId round, long ringVersion) implements Reply {}

  private static String versionSuffix(long ringVersion) {
    return ringVersion == 0 ? "" : ", ringVersion=" + ringVersion;
  }

  /**
   * The replica durably promised {@code ballot}. {@code previous} is its promise before (the
   * effective promise: max of promised and accepted ballot); {@code accepted} its accepted part or
   * null (⊥).
   */
  record Promise(Key key, RoundId round, Ballot ballot, Ballot previous, AcceptedValue accepted)
      implements Reply {}

  /** The replica durably accepted {@code ballot}'s proposal at {@code (epoch, timestamp)}. */
  record Accepted(Key key, RoundId round, Ballot ballot, long epoch, long timestamp)
      implements Reply {}

  /**
   * The replica refused a prepare or accept for {@code ballot}: it promised {@code promised}
   * (higher), or it holds a newer instance. Carries its clock and value so the coordinator learns
   * both.
   */
  record Reject(Key key, RoundId round, Ballot ballot, Ballot promised, AcceptedValue accepted)
      implements Reply {}

  /** The replica's durable clock and value: effective promise and accepted part (or null). */
  record ReadReply(Key key, RoundId round, Ballot promised, AcceptedValue accepted)
      implements Reply {}
}
