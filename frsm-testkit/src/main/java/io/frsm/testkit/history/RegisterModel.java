package io.frsm.testkit.history;

import java.util.List;

/**
 * The sequential specification of one key (docs/DESIGN.md "Operations"): a compare-and-swap
 * register with create and delete, versioned by (epoch, timestamp). Pure functions of (operation,
 * state).
 */
final class RegisterModel {
  private RegisterModel() {}

  /**
   * The state after {@code op} takes effect in {@code state} with its recorded output, or null if
   * it cannot. For an operation with an unknown outcome this is the state had it taken effect;
   * leaving it out is the search's other choice.
   */
  static RegisterState apply(CompiledOperation op, RegisterState state) {
    if (op.isUnknown()) {
      return takeEffect(op, state);
    }
    switch (op.kind) {
      case GET:
        if (op.result != CompiledOperation.Result.FOUND) {
          return state.present ? null : state;
        }
        RegisterState read = holds(state, op.outputValue, op.outputEpoch, op.outputTimestamp);
        if (read != null || op.outputTimestamp == 0) {
          return read;
        }
        // A mutating quorum read quenches: it re-writes the value it read one timestamp on and
        // answers the new version (docs/DESIGN.md "Mutating quorum read").
        RegisterState quenched =
            holds(state, op.outputValue, op.outputEpoch, op.outputTimestamp - 1);
        return quenched == null ? null : quenched.withTimestamp(op.outputTimestamp);
      case CREATE:
        if (op.result == CompiledOperation.Result.KEY_EXISTS) {
          return holds(state, op.outputValue, op.outputEpoch, op.outputTimestamp);
        }
        if (state.present || op.outputTimestamp != 0 || op.outputEpoch <= state.newEpochFloor()) {
          return null;
        }
        return RegisterState.present(op.inputValue, true, op.outputEpoch, 0);
      case CAS:
        if (op.result != CompiledOperation.Result.WRITTEN) {
          return mismatch(op, state);
        }
        if (op.outputEpoch != op.expectedEpoch || op.outputTimestamp != op.expectedTimestamp + 1) {
          return null; // a successful CAS produces expected.next(), nothing else
        }
        return takeEffect(op, state);
      case DELETE:
        return op.result == CompiledOperation.Result.DELETED
            ? takeEffect(op, state)
            : mismatch(op, state);
      case FENCE:
        if (op.result == CompiledOperation.Result.ABSENT) {
          return state.present ? null : takeEffect(op, state);
        }
        if (op.outputTimestamp == 0) {
          return null; // a fence on a present key always bumps the timestamp
        }
        RegisterState before = holds(state, op.outputValue, op.outputEpoch, op.outputTimestamp - 1);
        return before == null ? null : before.withTimestamp(op.outputTimestamp);
      default:
        throw new AssertionError(op.kind);
    }
  }

  /**
   * Whether an unknown-outcome cas or delete can no longer take effect from {@code state} or any
   * later state: the key has moved past its expected version, and versions never go back. Such an
   * operation can be dropped from the search at once.
   */
  static boolean cannotTakeEffect(CompiledOperation op, RegisterState state) {
    if (!op.isUnknown() || !op.kind.takesExpectedVersion()) {
      return false;
    }
    if (!state.epochKnown) {
      return state.epoch >= op.expectedEpoch; // the actual epoch is above the bound
    }
    if (state.epoch != op.expectedEpoch) {
      return state.epoch > op.expectedEpoch;
    }
    // Same epoch: deleted (a re-create starts a new epoch) or already past the timestamp.
    return !state.present || state.timestamp > op.expectedTimestamp;
  }

  /** The effect of {@code op} succeeding, whatever its recorded output; null if it cannot. */
  private static RegisterState takeEffect(CompiledOperation op, RegisterState state) {
    switch (op.kind) {
      case CREATE:
        return state.present
            ? null
            : RegisterState.present(op.inputValue, false, state.newEpochFloor(), 0);
      case CAS:
        {
          RegisterState at = at(state, op.expectedEpoch, op.expectedTimestamp);
          return at == null
              ? null
              : RegisterState.present(
                  op.inputValue, true, op.expectedEpoch, op.expectedTimestamp + 1);
        }
      case DELETE:
        {
          RegisterState at = at(state, op.expectedEpoch, op.expectedTimestamp);
          return at == null ? null : RegisterState.absent(true, op.expectedEpoch);
        }
      case FENCE:
        return state.present
            ? state.withTimestamp(state.timestamp + 1)
            : RegisterState.absent(false, state.newEpochFloor());
      case GET:
        // The quench of a mutating quorum read; on an absent key a get writes nothing new.
        return state.present ? state.withTimestamp(state.timestamp + 1) : state;
      default:
        throw new AssertionError(op.kind);
    }
  }

  private static RegisterState mismatch(CompiledOperation op, RegisterState state) {
    if (op.result == CompiledOperation.Result.MISMATCH_ABSENT) {
      return state.present ? null : state;
    }
    if (op.outputEpoch == op.expectedEpoch && op.outputTimestamp == op.expectedTimestamp) {
      return null; // the reported current version is the expected one: the CAS would have won
    }
    return holds(state, op.outputValue, op.outputEpoch, op.outputTimestamp);
  }

  /** {@code state} (epoch bound) if the key is present at (epoch, timestamp), else null. */
  private static RegisterState at(RegisterState state, long epoch, long timestamp) {
    return state.present && state.timestamp == timestamp ? state.bindEpoch(epoch) : null;
  }

  /**
   * {@code state} (epoch bound) if the key holds {@code value} at (epoch, timestamp), else null.
   */
  private static RegisterState holds(RegisterState state, int value, long epoch, long timestamp) {
    return state.present && state.value == value ? at(state, epoch, timestamp) : null;
  }

  /** What {@code op} requires of the state before it, for failure reports. */
  static String requirement(CompiledOperation op, List<Bytes> values) {
    String expected = "(" + op.expectedEpoch + ", " + op.expectedTimestamp + ")";
    String observed =
        op.outputValue < 0
            ? ""
            : values.get(op.outputValue)
                + " at ("
                + op.outputEpoch
                + ", "
                + (op.kind == OperationKind.FENCE
                    ? op.outputTimestamp - 1 + ") before the fence"
                    : op.outputTimestamp + ")");
    switch (op.result) {
      case FOUND:
        return op.kind == OperationKind.GET && op.outputTimestamp > 0
            ? "needs the key present with " + observed + ", or one timestamp before (a quench)"
            : "needs the key present with " + observed;
      case KEY_EXISTS:
        return "needs the key present with " + observed;
      case MISMATCH_PRESENT:
        return "needs the key present with " + observed + ", not at " + expected;
      case ABSENT:
      case MISMATCH_ABSENT:
        return "needs the key absent";
      case DELETED:
        return "needs the key present at " + expected;
      case WRITTEN:
        return op.kind == OperationKind.CREATE
            ? "needs the key absent, its epochs so far below "
                + op.outputEpoch
                + " and the new timestamp 0"
            : "needs the key present at " + expected + " and to produce " + expected + ".next()";
      case UNKNOWN:
      default:
        return "may be left out";
    }
  }
}
