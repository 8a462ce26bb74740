package io.frsm.cell;

import java.util.Arrays;
import java.util.Objects;

/**
 * The accepted part of a cell: the value a replica accepted at Paxos instance {@code (epoch,
 * timestamp)} under ballot {@code accepted}, and whether it is known to be chosen.
 *
 * <p>Accepted parts are ordered by {@code (epoch, timestamp, accepted)}; {@code chosen}, the kind
 * and the bytes do not take part in the order, because one ballot carries at most one value per
 * instance. A delete's value is empty.
 *
 * <p>An optional {@link IdempotencyToken} travels with the value: the token of the client mutation
 * that proposed it (docs/PROTOCOL.md "Idempotent resends"). Like the kind and the bytes it is part
 * of the proposal (re-commits under a new ballot keep it) but not of the order. Never user data.
 *
 * <p>Immutable. The value array is owned by this object: callers must not modify what {@link
 * #valueUnsafe()} returns.
 */
public final class AcceptedValue implements Comparable<AcceptedValue> {
  private static final byte[] EMPTY = new byte[0];

  private final long epoch;
  private final long timestamp;
  private final Ballot accepted;
  private final CellKind kind;
  private final byte[] value;
  private final boolean chosen;

  /** The proposing mutation's token, or null. */
  private final IdempotencyToken token;

  private AcceptedValue(
      long epoch,
      long timestamp,
      Ballot accepted,
      CellKind kind,
      byte[] value,
      boolean chosen,
      IdempotencyToken token) {
    if (epoch < 0 || timestamp < 0) {
      throw new IllegalArgumentException(
          "instance fields must be >= 0: (" + epoch + ", " + timestamp + ")");
    }
    Objects.requireNonNull(accepted, "accepted");
    if (accepted.isNone()) {
      throw new IllegalArgumentException("an accepted value needs a real ballot");
    }
    if (kind == CellKind.DELETED_CELL_TOMBSTONED) {
      throw new IllegalArgumentException("DELETED_CELL_TOMBSTONED is derived, never stored");
    }
    if (kind == CellKind.DELETE_FOR_CELL && value.length != 0) {
      throw new IllegalArgumentException("a delete carries no value");
    }
    this.epoch = epoch;
    this.timestamp = timestamp;
    this.accepted = accepted;
    this.kind = Objects.requireNonNull(kind, "kind");
    this.value = value;
    this.chosen = chosen;
    this.token = token;
  }

  /** A live value. Takes ownership of {@code value}: the caller must not modify it afterwards. */
  public static AcceptedValue live(
      long epoch, long timestamp, Ballot accepted, byte[] value, boolean chosen) {
    return live(epoch, timestamp, accepted, value, chosen, null);
  }

  /** A live value proposed by the mutation with {@code token} (null: none). */
  public static AcceptedValue live(
      long epoch,
      long timestamp,
      Ballot accepted,
      byte[] value,
      boolean chosen,
      IdempotencyToken token) {
    return new AcceptedValue(
        epoch, timestamp, accepted, CellKind.LIVE, Objects.requireNonNull(value), chosen, token);
  }

  public static AcceptedValue delete(long epoch, long timestamp, Ballot accepted, boolean chosen) {
    return delete(epoch, timestamp, accepted, chosen, null);
  }

  /** A delete marker proposed by the mutation with {@code token} (null: none). */
  public static AcceptedValue delete(
      long epoch, long timestamp, Ballot accepted, boolean chosen, IdempotencyToken token) {
    return new AcceptedValue(
        epoch, timestamp, accepted, CellKind.DELETE_FOR_CELL, EMPTY, chosen, token);
  }

  /** Decoding entry point: kind as stored. Takes ownership of {@code value}. */
  public static AcceptedValue of(
      long epoch, long timestamp, Ballot accepted, CellKind kind, byte[] value, boolean chosen) {
    return of(epoch, timestamp, accepted, kind, value, chosen, null);
  }

  /** Decoding entry point with the token as stored (null: none). */
  public static AcceptedValue of(
      long epoch,
      long timestamp,
      Ballot accepted,
      CellKind kind,
      byte[] value,
      boolean chosen,
      IdempotencyToken token) {
    return new AcceptedValue(epoch, timestamp, accepted, kind, value, chosen, token);
  }

  public long epoch() {
    return epoch;
  }

  public long timestamp() {
    return timestamp;
  }

  public Ballot accepted() {
    return accepted;
  }

  public CellKind kind() {
    return kind;
  }

  public boolean isDelete() {
    return kind == CellKind.DELETE_FOR_CELL;
  }

  public boolean chosen() {
    return chosen;
  }

  /** The value bytes. REQUIRES: the caller does not modify them. */
  public byte[] valueUnsafe() {
    return value;
  }

  public byte[] valueCopy() {
    return value.clone();
  }

  /** The token of the mutation that proposed this value, or null: none was given. */
  public IdempotencyToken token() {
    return token;
  }

  /** Whether this value was proposed by the mutation with {@code token} (non-null). */
  public boolean hasToken(IdempotencyToken token) {
    return this.token != null && this.token.equals(token);
  }

  public AcceptedValue withChosen(boolean chosen) {
    return chosen == this.chosen
        ? this
        : new AcceptedValue(epoch, timestamp, accepted, kind, value, chosen, token);
  }

  /**
   * The same proposal (instance, kind, bytes, token) under {@code ballot}, not known chosen: what a
   * coordinator re-commits. Keeping the token is what lets a resend recognise its own value after
   * another leader completed it.
   */
  public AcceptedValue reballot(Ballot ballot) {
    return new AcceptedValue(epoch, timestamp, ballot, kind, value, false, token);
  }

  /** Same Paxos instance {@code (epoch, timestamp)}. */
  public boolean sameInstance(AcceptedValue o) {
    return epoch == o.epoch && timestamp == o.timestamp;
  }

  /** Compares the instance only: {@code (epoch, timestamp)}. */
  public int compareInstance(AcceptedValue o) {
    int c = Long.compare(epoch, o.epoch);
    return c != 0 ? c : Long.compare(timestamp, o.timestamp);
  }

  /** The join order: {@code (epoch, timestamp, accepted)}. */
  @Override
  public int compareTo(AcceptedValue o) {
    int c = compareInstance(o);
    return c != 0 ? c : accepted.compareTo(o.accepted);
  }

  /** Same triple {@code (epoch, timestamp, accepted)}. */
  public boolean sameTriple(AcceptedValue o) {
    return compareTo(o) == 0;
  }

  /** Same triple, kind, bytes and token: the same proposal. {@code chosen} is ignored. */
  public boolean sameProposal(AcceptedValue o) {
    return sameTriple(o)
        && kind == o.kind
        && Arrays.equals(value, o.value)
        && Objects.equals(token, o.token);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof AcceptedValue a && sameProposal(a) && chosen == a.chosen;
  }

  @Override
  public int hashCode() {
    return Objects.hash(epoch, timestamp, accepted, kind, chosen, token) * 31
        + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "("
        + epoch
        + ","
        + timestamp
        + " by "
        + accepted
        + " "
        + kind
        + " "
        + value.length
        + "B"
        + (chosen ? " chosen" : "")
        + (token == null ? "" : " token " + token)
        + ")";
  }
}
