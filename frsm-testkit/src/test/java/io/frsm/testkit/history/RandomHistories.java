package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

/**
 * Linearizable single-key histories made by running the model sequentially: operation i takes
 * effect at instant {@code 100·i}, and its interval is widened around that instant by up to {@code
 * spreadNanos} each way, so neighbours overlap while the sequential order stays a valid
 * linearization. Some mutations end unknown, whether or not they took effect.
 */
final class RandomHistories {
  private RandomHistories() {}

  private static final long STEP_NANOS = 100;

  static List<Operation> linearizable(Random random, int count, int clients, long spreadNanos) {
    List<Operation> history = new ArrayList<>();
    boolean present = false;
    Bytes value = null;
    long epoch = -1;
    long timestamp = 0;
    for (int i = 0; i < count; i++) {
      long point = STEP_NANOS * (i + 1) + spreadNanos;
      long call = point - (long) (random.nextDouble() * spreadNanos);
      long ret = point + (long) (random.nextDouble() * spreadNanos);
      long client = random.nextInt(clients);
      boolean unknown = random.nextInt(10) == 0;
      boolean tookEffect = !unknown || random.nextBoolean();
      Bytes newValue = Bytes.utf8("v" + i);
      Version current = present ? new Version(epoch, timestamp) : null;
      Version expected =
          current != null && random.nextInt(4) != 0
              ? current
              : new Version(Math.max(0, epoch), Math.max(0, timestamp - random.nextInt(2)));
      int kind = random.nextInt(20);
      OperationKind opKind;
      Input input;
      Output output;
      if (kind < 7) {
        opKind = OperationKind.GET;
        input = Input.none();
        output = read(present, value, epoch, timestamp);
        unknown = false;
      } else if (kind < 10) {
        opKind = OperationKind.CREATE;
        input = Input.create(newValue);
        if (present) {
          output = new Output.KeyExists(new VersionedValue(value, current));
          unknown = false;
        } else {
          long newEpoch = epoch + 1 + random.nextInt(3);
          output = new Output.Written(new Version(newEpoch, 0));
          if (tookEffect) {
            present = true;
            value = newValue;
            epoch = newEpoch;
            timestamp = 0;
          }
        }
      } else if (kind < 15) {
        opKind = OperationKind.CAS;
        input = Input.cas(expected, newValue);
        if (expected.equals(current)) {
          output = new Output.Written(expected.next());
          if (tookEffect) {
            value = newValue;
            timestamp++;
          }
        } else {
          output = mismatch(present, value, current);
          unknown = false;
        }
      } else if (kind < 17) {
        opKind = OperationKind.DELETE;
        input = Input.delete(expected);
        if (expected.equals(current)) {
          output = Output.DELETED;
          if (tookEffect) {
            present = false;
            value = null;
            timestamp = 0;
          }
        } else {
          output = mismatch(present, value, current);
          unknown = false;
        }
      } else {
        opKind = OperationKind.FENCE;
        input = Input.none();
        if (tookEffect) {
          if (present) {
            timestamp++;
          } else {
            epoch = epoch + 1 + random.nextInt(3);
          }
        }
        output = read(present, value, epoch, timestamp);
      }
      history.add(
          new Operation(
              client,
              opKind,
              Bytes.utf8(Ops.KEY),
              input,
              unknown ? Output.UNKNOWN : output,
              call,
              ret));
    }
    return history;
  }

  private static Output read(boolean present, Bytes value, long epoch, long timestamp) {
    return present
        ? new Output.Found(new VersionedValue(value, new Version(epoch, timestamp)))
        : Output.ABSENT;
  }

  private static Output mismatch(boolean present, Bytes value, Version current) {
    return new Output.CasMismatch(
        present ? Optional.of(new VersionedValue(value, current)) : Optional.empty());
  }

  /**
   * The history with one read's output replaced by another plausible one (a different observed
   * value/version, absent, or present one timestamp later); empty if it has no known read.
   */
  static Optional<List<Operation>> withOneReadChanged(List<Operation> history, Random random) {
    List<Integer> reads = new ArrayList<>();
    List<VersionedValue> observed = new ArrayList<>();
    for (int i = 0; i < history.size(); i++) {
      Operation op = history.get(i);
      if (op.kind() == OperationKind.GET && !(op.output() instanceof Output.Unknown)) {
        reads.add(i);
      }
      if (op.output() instanceof Output.Found f) {
        observed.add(f.current());
      }
    }
    if (reads.isEmpty()) {
      return Optional.empty();
    }
    int target = reads.get(random.nextInt(reads.size()));
    Operation read = history.get(target);
    Output replacement;
    int choice = random.nextInt(3);
    if (choice == 0 && !observed.isEmpty()) {
      replacement = new Output.Found(observed.get(random.nextInt(observed.size())));
    } else if (choice == 1 && read.output() instanceof Output.Found f) {
      replacement =
          new Output.Found(new VersionedValue(f.current().value(), f.current().version().next()));
    } else {
      replacement =
          read.output() instanceof Output.Absent
              ? new Output.Found(
                  new VersionedValue(Bytes.utf8("v" + random.nextInt(10)), new Version(0, 0)))
              : Output.ABSENT;
    }
    if (replacement.equals(read.output())) {
      return Optional.empty();
    }
    List<Operation> changed = new ArrayList<>(history);
    changed.set(
        target,
        new Operation(
            read.client(),
            read.kind(),
            read.key(),
            read.input(),
            replacement,
            read.callNanos(),
            read.returnNanos()));
    return Optional.of(changed);
  }
}
