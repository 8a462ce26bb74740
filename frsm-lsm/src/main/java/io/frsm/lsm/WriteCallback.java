package io.frsm.lsm;

/**
 * Told once how a write given to {@link LsmEngine#write(io.frsm.cell.Cell, Object, WriteCallback)}
 * or {@link LsmEngine#writeUnlogged(io.frsm.cell.Cell, Object, WriteCallback)} ended, with the
 * caller's {@code attachment}: so one callback object serves every write (no object per write), as
 * {@link java.nio.channels.CompletionHandler}'s attachment does for asynchronous channels.
 *
 * @param <A> the attachment's type
 */
@FunctionalInterface
public interface WriteCallback<A> {
  /**
   * The write ended: {@code failure} is null if it succeeded (see the write method for what that
   * means), else what the write's future would have failed with. Runs on a commit-log thread (or on
   * the writer's, see the write methods): keep it short, and do not throw — what it throws is
   * logged and otherwise ignored.
   */
  void written(A attachment, Throwable failure);
}
