package io.frsm.consensus.core;

import io.frsm.cell.Key;

/**
 * What the core tells a reader outside its own thread so that reader can serve leader-only reads
 * the core would serve (docs/PROTOCOL.md "Leader-only reads on the caller's thread"). The core
 * calls it during {@link NodeCore#step}, before the step's effects are carried out, so a reply that
 * reveals a newer value is never sent before the gate knows the key is unsettled.
 *
 * <p>Calls come from the core's thread only; an implementation shares what it learns with readers
 * on other threads.
 */
public interface ReadGate {

  /** Tells nothing: no reads outside the core's thread. */
  ReadGate NONE =
      new ReadGate() {
        @Override
        public void unsettled(Key key) {}

        @Override
        public void settled(Key key) {}

        @Override
        public void range(int range, long term, long modeEntry, long servableUntilMonoNanos) {}
      };

  /**
   * The local cell of {@code key} may lag what this node learned or started (the key is catching
   * up, or has an accept of this node whose round is open): no read of it may be served locally
   * until {@link #settled}.
   */
  void unsettled(Key key);

  /** The local cell of {@code key} holds everything this node learned; no accept of it is open. */
  void settled(Key key);

  /**
   * Range {@code range} as the core sees it now: leader-only reads may be served while the
   * monotonic clock is below {@code servableUntilMonoNanos} ({@link Long#MIN_VALUE}: not at all —
   * no lease, not in leader-only mode, released). {@code term} and {@code modeEntry} (which counts
   * this range's entries into leader-only mode) identify the stretch of leader-only mode a value
   * belongs to: a reader that saw another pair before it read the cell must not serve it.
   */
  void range(int range, long term, long modeEntry, long servableUntilMonoNanos);
}
