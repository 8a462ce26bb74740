package io.frsm.consensus.core;

import io.frsm.cell.Key;
import java.util.Objects;

/**
 * Which of a node's core shards owns an input (docs/PROTOCOL.md "Core shards").
 *
 * <p>A node may run several {@link NodeCore}s, each on its own thread, so that its consensus work
 * uses more than one CPU. They share the node id, the boot, the store and the transport, and split
 * the ring's ranges between them: range {@code r} belongs to shard {@code r mod shards}. Every
 * input about a key or a range goes to the shard owning that range — a client operation and a peer
 * message by their key (a range's reserved term cell by the range it names), a coordination input
 * by its range — so each key's and each range's whole protocol state (acceptor cell, runs, term,
 * lease, scan) lives in exactly one core, which is what the single-core proofs need: no state is
 * shared, only the node's identity, and ballots of two shards never meet on one key.
 *
 * <p>A {@link Input.Tick} and an {@link Input.PlacementChanged} go to every shard; a {@link
 * Input.PersistDone} back to the shard that emitted the persist (persist ids are per core): none of
 * them has an owner here. A placement change keeps the ranges, so it keeps every range's shard.
 * Pure and immutable.
 */
public final class ShardRouting {
  /** Beyond this, shards would outnumber a realistic ring's ranges and CPUs alike. */
  public static final int MAX_SHARDS = 64;

  private final Placement placement;
  private final int shards;

  public ShardRouting(Placement placement, int shards) {
    this.placement = Objects.requireNonNull(placement);
    if (shards < 1 || shards > MAX_SHARDS) {
      throw new IllegalArgumentException(
          "core shards must be in [1, " + MAX_SHARDS + "], was " + shards);
    }
    this.shards = shards;
  }

  public int shards() {
    return shards;
  }

  /** The shard owning range {@code range}. Any int maps to a shard: bad input is the core's. */
  public int ofRange(int range) {
    return Math.floorMod(range, shards);
  }

  /**
   * The shard owning {@code key}'s range. A reserved range-term key names its range in its bytes,
   * not by its token (its token may fall in any range); anything else goes by token.
   */
  public int ofKey(Key key) {
    if (shards == 1) {
      return 0;
    }
    int named = RangeTerm.rangeOf(key);
    return ofRange(named >= 0 ? named : placement.rangeOf(key));
  }

  /**
   * The shard owning {@code input}.
   *
   * @throws IllegalArgumentException for a tick, a placement change or a persist completion, which
   *     have no owner here
   */
  public int of(Input input) {
    if (input instanceof Input.ClientRequest request) {
      return ofKey(request.operation().key());
    } else if (input instanceof Input.Receive receive) {
      return ofKey(receive.message().key());
    } else if (input instanceof Input.TermGranted granted) {
      return ofRange(granted.range());
    } else if (input instanceof Input.LeaseRenewed renewed) {
      return ofRange(renewed.range());
    } else if (input instanceof Input.LeaseLost lost) {
      return ofRange(lost.range());
    } else if (input instanceof Input.ReleaseLease release) {
      return ofRange(release.range());
    } else if (input instanceof Input.Candidacy candidacy) {
      return ofRange(candidacy.range());
    } else if (input instanceof Input.SettleRange settle) {
      return ofRange(settle.range());
    } else if (input instanceof Input.HandOff handOff) {
      return ofRange(handOff.range());
    } else if (input instanceof Input.ImportShipment imported) {
      return ofRange(imported.shipment().range());
    } else if (input instanceof Input.RestoreBase restore) {
      return ofRange(restore.range());
    }
    throw new IllegalArgumentException(
        input
            + " has no owning shard: ticks and placement changes go to every shard, persist"
            + " completions to the emitter");
  }
}
