package io.frsm.consensus.core;

import java.util.Objects;

/** What the driver feeds into {@link NodeCore#step}. */
public sealed interface Input {

  /**
   * A client operation. {@code invokedAtMicros} is τ, the caller's wall clock when it issued the
   * operation: no prepare or accept for it starts after {@code τ + T}.
   */
  record ClientRequest(long requestId, Operation operation, long invokedAtMicros) implements Input {
    public ClientRequest {
      Objects.requireNonNull(operation);
    }
  }

  /** A peer message, possibly from this node itself. */
  record Receive(int from, Message message) implements Input {
    public Receive {
      Objects.requireNonNull(message);
    }
  }

  /** Time passed: timeouts, hedging, back-off and the bounded delay are checked. */
  record Tick() implements Input {}

  /** The persist {@code persistId} is durable and visible to {@link CellStore#get}. */
  record PersistDone(long persistId) implements Input {}

  /**
   * From the coordination service: this node won range {@code range}'s latch and bumped its term to
   * {@code term}, revoking the predecessor's lease generation in the same {@code multi}. The node
   * accepts nothing in the range until {@code L·(1+ρ)} after this input, by its monotonic clock,
   * then persists the term at {@code q} replicas.
   *
   * <p>{@code noEarlierLease}: no lease of any earlier term can be in force, so the node persists
   * its term at once, without the wait. Either the same {@code multi} found the release mark of
   * term {@code term − 1} (see {@link ReleaseLease}), or {@code term} is the range's first (term 1:
   * no node ever held a lease of the range).
   */
  record TermGranted(int range, long term, boolean noEarlierLease) implements Input {
    public TermGranted {
      if (range < 0 || term < 1) {
        throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
      }
    }

    /** A grant that found no release mark: the successor waits {@code L·(1+ρ)}. */
    public TermGranted(int range, long term) {
      this(range, term, false);
    }
  }

  /**
   * From this node's coordination agent, which stopped renewing {@code term}'s lease of range
   * {@code range} because it hands the range over on purpose (a stand-in giving the range back to
   * its natural leader, a graceful stop). The lease ends now and no renewal of {@code term} counts
   * again; the core answers {@link Effect.LeaseReleased}, whose {@code clean} says whether the
   * agent may write the range's release mark (letting the successor skip its wait).
   */
  record ReleaseLease(int range, long term) implements Input {
    public ReleaseLease {
      if (range < 0 || term < 1) {
        throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
      }
    }
  }

  /**
   * From the coordination service: a renewal {@code multi(check(lease generation))} for {@code
   * term}, sent at this node's monotonic time {@code requestSentMonoNanos} (same incarnation),
   * succeeded. The lease runs until {@code requestSentMonoNanos + L·(1−ρ)}.
   */
  record LeaseRenewed(int range, long term, long requestSentMonoNanos) implements Input {
    public LeaseRenewed {
      if (range < 0 || term < 1) {
        throw new IllegalArgumentException("range >= 0, term >= 1: " + range + ", " + term);
      }
    }
  }

  /** From the coordination service: a failed check or a LOST session. The lease ends now. */
  record LeaseLost(int range) implements Input {}

  /**
   * From this node's coordination agent: whether the node competes for range {@code range}'s latch
   * ({@code candidate}), i.e. is the range's preferred holder in the agent's view of the cluster. A
   * node routes an operation on a key to itself when it holds the key's range or is about to take
   * it over; the operation then waits in the core for the range's grant. A node that stops
   * competing without ever being granted the range would otherwise keep such an operation waiting,
   * for a grant that will not come, until the bounded delay answers it: once the core learns {@code
   * candidate == false}, an operation waiting for the range that proposed nothing of its own ends
   * at once, not executed and marked as moved, and the node routes it again. A grant makes the node
   * a candidate again. Until told, the core treats the node as a candidate for every range (the
   * simulator's agents never say otherwise).
   */
  record Candidacy(int range, boolean candidate) implements Input {
    public Candidacy {
      if (range < 0) {
        throw new IllegalArgumentException("range >= 0: " + range);
      }
    }
  }

  /**
   * From the node's membership: the cluster's placement is now {@code next} (the home for adding
   * and removing nodes). Allowed: the same ranges as the core's current placement — as many, with
   * the same end tokens — and any replica set for each; anything else is refused with an {@link
   * IllegalArgumentException} and changes nothing. A range's set changes when its members change (a
   * new order alone keeps the set).
   *
   * <p>Effect: a run already started finishes with the replica set it started with, its quorum
   * counted there (its rounds, hedges and retries, and the delete completion it hands over); queued
   * operations and later ones start with the new set. Warm keys of a changed range turn cold. A
   * range whose set is unchanged keeps its term, lease, scan and leader-only mode; for a range
   * whose set changed they end as on a lost lease: leader-only mode off, the scan dropped, the term
   * no longer counted as persisted (it is persisted again at the new set, then scanned anew), and
   * only renewals sent from now on count. The acceptor is unaffected (terms are per range, ranges
   * are unchanged). A placement equal to the current one changes nothing.
   *
   * <p>Not yet safe on its own: docs/PROTOCOL.md "Placement changes". Goes to every core shard.
   */
  record PlacementChanged(Placement next) implements Input {
    public PlacementChanged {
      Objects.requireNonNull(next);
    }
  }
}
