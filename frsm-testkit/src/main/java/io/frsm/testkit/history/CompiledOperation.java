package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.util.List;
import java.util.Map;

/** An operation of one key reduced to what the model needs, with values as interned ids. */
final class CompiledOperation {
  /** The output, flattened: which case, and the value/version it carries if any. */
  enum Result {
    FOUND,
    ABSENT,
    WRITTEN,
    DELETED,
    KEY_EXISTS,
    MISMATCH_PRESENT,
    MISMATCH_ABSENT,
    UNKNOWN
  }

  final Operation source;
  final OperationKind kind;
  final Result result;
  final int inputValue;
  final long expectedEpoch;
  final long expectedTimestamp;
  final int outputValue;
  final long outputEpoch;
  final long outputTimestamp;

  /**
   * @param valueIds interns values to ids; {@code values} receives each new value at its id
   * @throws IllegalArgumentException for a not-executed operation (it is never compiled)
   */
  CompiledOperation(Operation source, Map<Bytes, Integer> valueIds, List<Bytes> values) {
    this.source = source;
    this.kind = source.kind();
    this.inputValue = source.input().value().map(v -> intern(v, valueIds, values)).orElse(-1);
    Version expected = source.input().expected().orElse(null);
    this.expectedEpoch = expected == null ? -1 : expected.epoch();
    this.expectedTimestamp = expected == null ? -1 : expected.timestamp();
    Output output = source.output();
    VersionedValue carried = null;
    Version version = null;
    if (output instanceof Output.Found f) {
      result = Result.FOUND;
      carried = f.current();
    } else if (output instanceof Output.Absent) {
      result = Result.ABSENT;
    } else if (output instanceof Output.Written w) {
      result = Result.WRITTEN;
      version = w.version();
    } else if (output instanceof Output.Deleted) {
      result = Result.DELETED;
    } else if (output instanceof Output.KeyExists k) {
      result = Result.KEY_EXISTS;
      carried = k.current();
    } else if (output instanceof Output.CasMismatch c) {
      result = c.current().isPresent() ? Result.MISMATCH_PRESENT : Result.MISMATCH_ABSENT;
      carried = c.current().orElse(null);
    } else if (output instanceof Output.Unknown) {
      result = Result.UNKNOWN;
    } else {
      throw new IllegalArgumentException("not-executed operations are left out of the search");
    }
    if (carried != null) {
      version = carried.version();
    }
    this.outputValue = carried == null ? -1 : intern(carried.value(), valueIds, values);
    this.outputEpoch = version == null ? -1 : version.epoch();
    this.outputTimestamp = version == null ? -1 : version.timestamp();
  }

  boolean isUnknown() {
    return result == Result.UNKNOWN;
  }

  private static int intern(Bytes value, Map<Bytes, Integer> valueIds, List<Bytes> values) {
    return valueIds.computeIfAbsent(
        value,
        v -> {
          values.add(v);
          return values.size() - 1;
        });
  }
}
