package io.frsm.bench.crsm;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * One shard's key-value state, changed only by executing chosen log entries in slot order, with
 * frsm's semantics (docs/DESIGN.md "Operations"): every mutation is a CAS on {@code (epoch,
 * timestamp)}; a delete leaves a marker so the next create starts a higher epoch.
 *
 * <p>Deterministic: the same commands at the same slots give the same state and results on every
 * replica. A new epoch is {@code max(slot + 1, previous epoch + 1)}: above every epoch the key had,
 * and computed from the log alone (frsm uses a ballot's wall-clock round instead).
 *
 * <p>Not thread-safe: owned by one shard core.
 */
public final class KvStateMachine {

  /** A key's newest state; {@code value == null} is a delete marker. */
  private record Entry(Version version, byte[] value) {
    boolean live() {
      return value != null;
    }

    Optional<Versioned> asOptional() {
      return live() ? Optional.of(new Versioned(value, version)) : Optional.empty();
    }
  }

  private final Map<Key, Entry> entries = new HashMap<>();

  /** Executes {@code command}, the part of the entry chosen at {@code slot}. */
  public Result execute(long slot, Command command) {
    Key key = Key.wrap(command.key());
    Entry current = entries.get(key);
    if (command instanceof Command.Get) {
      return read(command.key());
    } else if (command instanceof Command.Create create) {
      if (current != null && current.live()) {
        return new Result.Exists(new Versioned(current.value, current.version));
      }
      Version v = new Version(newEpoch(slot, current), 0);
      entries.put(key, new Entry(v, create.value()));
      return new Result.Written(v);
    } else if (command instanceof Command.Cas cas) {
      if (current == null || !current.live() || !current.version.equals(cas.expected())) {
        return mismatch(cas.expected(), current);
      }
      Version v = current.version.next();
      entries.put(key, new Entry(v, cas.value()));
      return new Result.Written(v);
    } else if (command instanceof Command.Delete delete) {
      if (current == null || !current.live() || !current.version.equals(delete.expected())) {
        return mismatch(delete.expected(), current);
      }
      entries.put(key, new Entry(current.version.next(), null));
      return new Result.Deleted();
    } else if (command instanceof Command.Fence) {
      Entry fenced =
          current != null && current.live()
              ? new Entry(current.version.next(), current.value)
              : new Entry(new Version(newEpoch(slot, current), 0), null);
      entries.put(key, fenced);
      return new Result.Value(fenced.asOptional());
    }
    throw new IllegalArgumentException("unknown command " + command);
  }

  /** The key's current value without executing anything (a leader read). */
  public Result.Value read(byte[] key) {
    Entry current = entries.get(Key.wrap(key));
    return new Result.Value(current == null ? Optional.empty() : current.asOptional());
  }

  public int size() {
    return entries.size();
  }

  private static long newEpoch(long slot, Entry current) {
    long epoch = slot + 1;
    return current == null ? epoch : Math.max(epoch, current.version.epoch() + 1);
  }

  private static Result mismatch(Version expected, Entry current) {
    return new Result.Mismatch(expected, current == null ? Optional.empty() : current.asOptional());
  }
}
