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
   * From the node's membership: the cluster's placement is now {@code next}, at its ring version
   * (docs/PROTOCOL.md "Membership changes"). A newer version with the same ranges — as many, with
   * the same end tokens — and any voters and learners for each is installed and answered with
   * {@link Effect.RingInstalled}; an older version, or the same placement again, changes nothing
   * and is not answered (a late notice); the same version with other contents, or other ranges, is
   * refused with an {@link IllegalArgumentException} and changes nothing.
   *
   * <p>Effect: from now on the acceptor refuses requests of a range whose members (voters or
   * learners) changed that carry an older version ({@link Message.StaleRing}). A run already
   * started keeps the set it started with until it prepares again after a failed round, and then
   * takes the newest; queued operations and later ones start with the new set. Warm keys of a range
   * whose voters changed turn cold. A range whose voters are unchanged keeps its term, lease, scan
   * and leader-only mode; for a range whose voters changed they end as on a lost lease: leader-only
   * mode off, the scan dropped, the term no longer counted as persisted (it is persisted again at
   * the new voters, then scanned anew), and only renewals sent from now on count. Delete
   * completions of a range whose members changed are dropped (no purge: space, never safety). A
   * settle of another version is abandoned. Goes to every core shard.
   */
  record PlacementChanged(Placement next) implements Input {
    public PlacementChanged {
      Objects.requireNonNull(next);
    }
  }

  /**
   * From the orchestrator of a membership change: settle range {@code range} at ring version {@code
   * ringVersion}, which must be the installed one (docs/PROTOCOL.md "Membership changes", rule b).
   * The core lists the keys of a quorum of the version's voters and reads each until its newest
   * value is held by a quorum of them, then answers {@link Effect.RangeSettled}. With leases on,
   * only the range's holder can prepare: ask it. Goes to the shard owning the range.
   */
  record SettleRange(int range, long ringVersion) implements Input {
    public SettleRange {
      if (range < 0 || ringVersion < 0) {
        throw new IllegalArgumentException(
            "range >= 0, ring version >= 0: " + range + ", " + ringVersion);
      }
    }
  }

  /**
   * From this node's coordination agent: hand range {@code range}, held in term {@code term}, to
   * its successor (docs/PROTOCOL.md "Hand-off instead of a scan"; {@link CoreConfig.Modes#handOff}
   * on, else ignored). The core stops taking the range's client operations (refused as moved),
   * settles the keys it wrote in the term that may still be open, and then answers {@link
   * Effect.HandOffShipped}, having ended its term in the same step as a {@link ReleaseLease} does;
   * the agent delivers the shipment to the successor and releases. Ignored unless {@code term} is
   * this node's current term of the range and not given up. Keep renewing the lease until the
   * shipment: the settles need it. If more of the keys the node wrote in the term must be settled
   * (docs/PROTOCOL.md "Settle only what may be open") than {@link CoreConfig.Modes#handOffMaxKeys},
   * or than {@code maxKeys}, or it wrote more than a shipment takes, it answers {@link
   * Effect.HandOffDeclined} at once instead and nothing stops: release plainly.
   *
   * @param maxKeys this hand-off's own cap on the written keys its drain settles, below the
   *     configured one: the agent's share of a budget that spans the node's core shards
   *     (docs/PROTOCOL.md "Declining", the drain budget); 0 drains only a term that wrote nothing
   */
  record HandOff(int range, long term, int maxKeys) implements Input {
    public HandOff {
      if (range < 0 || term < 1 || maxKeys < 0) {
        throw new IllegalArgumentException(
            "range >= 0, term >= 1, maxKeys >= 0: " + range + ", " + term + ", " + maxKeys);
      }
    }

    /** Capped by the configuration only. */
    public HandOff(int range, long term) {
      this(range, term, Integer.MAX_VALUE);
    }
  }

  /**
   * From this node's coordination agent: the predecessor's {@link HandOffShipment}, streamed to
   * this node. Merged into the local cells if this node's own cells are complete up to the term
   * before the shipment's; then, once this node holds the next term persisted, the range enters
   * leader-only mode without a scan. Refused (and the scan runs) otherwise. Its contents come from
   * a peer: checked like a message ({@link InputBounds}).
   */
  record ImportShipment(HandOffShipment shipment) implements Input {
    public ImportShipment {
      Objects.requireNonNull(shipment);
    }
  }

  /**
   * From the driver at start, before any other input of the range: the durable base record this
   * node wrote at its last shipment of range {@code range} ({@link Effect.BaseReached}, docs/
   * PROTOCOL.md "The durable base"), read back from its data directory. Taken (the node's base of
   * the range becomes {@code term}, as if it had shipped {@code term} without restarting) only with
   * {@link CoreConfig.Modes#handOff} on, if {@code ringVersion} is the installed ring version and
   * this core has not been granted a term of the range yet; ignored otherwise (the range scans).
   * The driver feeds it only for a record whose checksum, cluster and node are right; a record it
   * cannot trust is never fed.
   *
   * <p>{@code entry}: the record is of an entry base ({@link Effect.BaseReached#entry}): the node's
   * cells held every value chosen before {@code term}; it lets the node import only a shipment of
   * {@code term + 1} that covers {@code term}.
   */
  record RestoreBase(int range, long term, long ringVersion, boolean entry) implements Input {
    public RestoreBase {
      if (range < 0 || term < 1 || ringVersion < 0) {
        throw new IllegalArgumentException(
            "range >= 0, term >= 1, ringVersion >= 0: " + range + ", " + term + ", " + ringVersion);
      }
    }

    /** The record of a graceful base (reached at a shipment). */
    public RestoreBase(int range, long term, long ringVersion) {
      this(range, term, ringVersion, false);
    }
  }
}
