package io.frsm.testkit.history;

import java.util.List;

/**
 * The model state of one key: absent, or present with a value at a version.
 *
 * <p><b>Lazy epochs.</b> Some transitions move the key to a new epoch that the history does not
 * name: a create whose outcome is unknown but took effect, and a fence on an absent key (its output
 * says only "absent"). The state then holds the epoch as unknown ({@code epochKnown == false}) with
 * {@code epoch} an <em>exclusive lower bound</em>: the real epoch is greater than every epoch the
 * key had before. The first later operation that observes a version of this epoch (a get, a failed
 * create or CAS reporting the current version, a CAS or delete that succeeds from it) binds it, and
 * the bound is checked then. An epoch nobody observes is never bound; a later create with a known
 * epoch E then only needs {@code E > bound + 1}, because an integer epoch lies strictly between.
 *
 * <p>Immutable; values are ids into the per-key value table.
 */
final class RegisterState {
  static final int NO_VALUE = -1;

  /** A key never created: absent, with no epoch yet (epochs start at 0). */
  static final RegisterState INITIAL = new RegisterState(false, NO_VALUE, true, -1, 0);

  final boolean present;
  final int value;
  final boolean epochKnown;

  /** The key's current epoch when {@link #epochKnown}; otherwise the epoch is greater than this. */
  final long epoch;

  /** Meaningful only when present; 0 when absent so that equal states compare equal. */
  final long timestamp;

  private final int hash;

  private RegisterState(
      boolean present, int value, boolean epochKnown, long epoch, long timestamp) {
    assert present == (value != NO_VALUE);
    assert present || timestamp == 0;
    this.present = present;
    this.value = value;
    this.epochKnown = epochKnown;
    this.epoch = epoch;
    this.timestamp = timestamp;
    int h = Boolean.hashCode(present);
    h = 31 * h + value;
    h = 31 * h + Boolean.hashCode(epochKnown);
    h = 31 * h + Long.hashCode(epoch);
    this.hash = 31 * h + Long.hashCode(timestamp);
  }

  static RegisterState present(int value, boolean epochKnown, long epoch, long timestamp) {
    return new RegisterState(true, value, epochKnown, epoch, timestamp);
  }

  static RegisterState absent(boolean epochKnown, long epoch) {
    return new RegisterState(false, NO_VALUE, epochKnown, epoch, 0);
  }

  /** An exclusive lower bound for a new epoch: above every epoch the key has had. */
  long newEpochFloor() {
    return epochKnown ? epoch : epoch + 1;
  }

  /** This state with its epoch being {@code observed}, or null if that contradicts it. */
  RegisterState bindEpoch(long observed) {
    if (epochKnown) {
      return observed == epoch ? this : null;
    }
    return observed > epoch ? new RegisterState(present, value, true, observed, timestamp) : null;
  }

  RegisterState withTimestamp(long newTimestamp) {
    assert present;
    return new RegisterState(true, value, epochKnown, epoch, newTimestamp);
  }

  String describe(List<Bytes> values) {
    String epochText = epochKnown ? Long.toString(epoch) : "unobserved epoch > " + epoch;
    if (!present) {
      return epochKnown && epoch < 0
          ? "absent (never created)"
          : "absent (last epoch " + epochText + ")";
    }
    return "present with " + values.get(value) + " at (" + epochText + ", " + timestamp + ")";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RegisterState s
        && present == s.present
        && value == s.value
        && epochKnown == s.epochKnown
        && epoch == s.epoch
        && timestamp == s.timestamp;
  }

  @Override
  public int hashCode() {
    return hash;
  }
}
