package io.frsm.consensus.core;

import io.frsm.cell.Cell;
import java.util.Objects;

/**
 * What {@link NodeCore#step} asks the driver to do, in order. A send or reply never describes state
 * of a persist whose {@link Input.PersistDone} has not been fed back: the core holds it until then.
 */
public sealed interface Effect {

  /**
   * Merge {@code delta} into the key's cell, then feed back {@link Input.PersistDone} with {@code
   * persistId}. {@code logged}: durably (commit log, then memtable) — a crash may lose any such
   * persist not yet done, none that is done. Not {@code logged}: a <em>hint</em> (docs/PROTOCOL.md
   * "Commits are hints"), visible to reads once done but lost by a crash until the store flushes
   * it; the core asks for one only for a commit of a live value, chosen and so already durable at a
   * quorum, so losing it is losing the commit message. The driver may complete persists of
   * different keys in any order.
   */
  record Persist(long persistId, Cell delta, boolean logged) implements Effect {
    public Persist {
      Objects.requireNonNull(delta);
    }

    /** A durable persist. */
    public Persist(long persistId, Cell delta) {
      this(persistId, delta, true);
    }
  }

  /** Deliver {@code message} to node {@code to} (possibly this node). May be lost or reordered. */
  record Send(int to, Message message) implements Effect {
    public Send {
      Objects.requireNonNull(message);
    }
  }

  /**
   * Answer the client request {@code requestId}. {@code readMode} says how a get that returned a
   * value or absence was served; it is null for every other reply.
   */
  record Reply(long requestId, Outcome outcome, ReadMode readMode) implements Effect {
    public Reply {
      Objects.requireNonNull(outcome);
      if (readMode != null && !(outcome instanceof Outcome.ReadResult)) {
        throw new IllegalArgumentException("a read mode needs a read result, got " + outcome);
      }
    }

    /** A reply that is not a served get. */
    public Reply(long requestId, Outcome outcome) {
      this(requestId, outcome, null);
    }
  }

  /**
   * The answer to {@link Input.ReleaseLease}: the core no longer holds {@code term}'s lease of
   * {@code range} and will not again. {@code clean}: no lease of {@code term} or of any earlier
   * term can be in force — this node's term started after the successor wait or from a released
   * predecessor, and is still the node's current term. Only then may the agent write the release
   * mark, and only while the lease generation is still the one {@code term} set.
   */
  record LeaseReleased(int range, long term, boolean clean) implements Effect {}

  /**
   * The answer to an {@link Input.PlacementChanged} that moved the core to a newer ring version:
   * from now on this node refuses every request of a range whose set changed that carries an older
   * version. The orchestrator of a membership change counts these (from a quorum of the new
   * version's voters) before it takes the next step (docs/PROTOCOL.md "Membership changes", rule
   * a). Not emitted for a placement the core already had or an older one.
   */
  record RingInstalled(long ringVersion) implements Effect {}

  /**
   * A replica refused one of this node's requests with {@link Message.StaleRing}: it installed ring
   * version {@code ringVersion}, newer than any this node has. The driver should fetch the ring;
   * emitted once per newer version seen.
   */
  record RingBehind(long ringVersion) implements Effect {}

  /**
   * The answer to {@link Input.SettleRange}. {@code settled}: every key of range {@code range} that
   * a voter of ring version {@code ringVersion} listed has its newest chosen value (or ⊥) held with
   * one accepted triple by a quorum of that version's voters, read after the listed replicas
   * stopped taking older rounds. False: the settle was abandoned (the core moved to another version
   * first, or the version asked for was not the installed one); ask again.
   */
  record RangeSettled(int range, long ringVersion, boolean settled) implements Effect {}

  /**
   * From the quorum watch ({@link NodeCore#watchQuorums}; never without it): this node can ({@code
   * reachable}) or cannot reach a quorum of range {@code range}'s replicas, judged by round trips
   * (docs/PROTOCOL.md "Step-down and the quorum watch"). Reported once per change. A hint for the
   * agent that competes for ranges: a holder that cannot reach a quorum hands the range over, and a
   * node that cannot does not compete for it; nothing in the core depends on it.
   */
  record QuorumReachability(int range, boolean reachable) implements Effect {}

  /**
   * The answer to {@link Input.HandOff}: every key this node wrote in {@code shipment.term()} is
   * settled, and the term is over for this node (it answers moved to the range's operations, as
   * after a release; a {@link LeaseReleased} in the same step says whether the release may be
   * marked). The agent delivers the shipment to the successor ({@link Input.ImportShipment}), then
   * leaves the latch.
   */
  record HandOffShipped(HandOffShipment shipment) implements Effect {
    public HandOffShipped {
      Objects.requireNonNull(shipment);
    }
  }

  /**
   * The answer to {@link Input.HandOff} when the holder will not drain: {@code writtenKeys} of the
   * keys it wrote of range {@code range} in {@code term} must be settled, more than {@link
   * CoreConfig.Modes#handOffMaxKeys} or the hand-off's own cap; or it wrote {@code writtenKeys}
   * keys, more than a shipment takes ({@code HandOffDrains.MAX_SHIPPED_KEYS}, or more than it
   * remembers: then the limit + 1) — docs/PROTOCOL.md "Declining". Nothing changed: the node still
   * holds the term and takes the range's operations. The agent releases plainly ({@link
   * Input.ReleaseLease}); the successor scans.
   */
  record HandOffDeclined(int range, long term, int writtenKeys) implements Effect {}

  /**
   * In the step that ships {@code term} of {@code range} from leader-only mode, just before its
   * {@link HandOffShipped}: this node's cells of the range now hold every value chosen up to the
   * end of {@code term} — some of them only as unlogged commits ("Commits are hints"). To keep that
   * base across a restart (docs/PROTOCOL.md "The durable base") the driver first makes every cell
   * of the range durable (a memtable flush), and only once the flush is durable writes the record
   * (range, term, {@code ringVersion}) durably; at start it feeds it back as {@link
   * Input.RestoreBase}. Skipping it is always safe: the node scans after a restart, as before.
   *
   * <p>{@code entry} true: an <em>entry base</em> (docs/PROTOCOL.md "A killed holder: covering its
   * term", step 3), emitted after this node entered leader-only mode in {@code term} (its scan, or
   * an import, done) and every value that scan brought in reached its cells: the cells hold every
   * value of the range chosen <em>before</em> {@code term}. Kept exactly as the graceful base — a
   * flush that starts after this effect, then the record — but the record must say which kind it
   * is: an entry base of {@code t} lets the node import only a shipment of {@code t + 1} that
   * covers {@code t}, a graceful base of {@code t} any shipment of {@code t + 1}.
   */
  record BaseReached(int range, long term, long ringVersion, boolean entry) implements Effect {
    /** The graceful base: reached at the shipment of {@code term}. */
    public BaseReached(int range, long term, long ringVersion) {
      this(range, term, ringVersion, false);
    }
  }

  /**
   * The durable base record of {@code range} no longer holds (this node was granted a later term of
   * the range, shipped a term not served leader-only, or the range's replicas changed): the driver
   * deletes it before it carries out any later effect of this step (the term persist and accepts of
   * a new term come after). The base the core keeps in memory is not affected.
   */
  record BaseDropped(int range) implements Effect {}
}
