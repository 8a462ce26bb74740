package io.frsm.server.zk;

/**
 * The node-wide budget of keys its hand-off drains settle at once (docs/PROTOCOL.md "Declining",
 * the drain budget). The core is per shard and only it knows how many keys a term wrote, so the
 * budget lives here, with the agent, and reaches the core as a per-hand-off cap ({@code
 * Input.HandOff.maxKeys}): a hand-off takes a {@link Share} of {@code min(maxKeys, available)} when
 * it asks; the core declines a term that wrote more than that, or begins the drain and says how
 * many keys it holds, and the share shrinks to that. The share is given back when the drain ends in
 * any way.
 *
 * <p>So that shares taken for answers still outstanding do not make later hand-offs decline for a
 * budget that is about to free, a hand-off {@link #mustWait waits} while asks are outstanding and
 * less than a full {@code maxKeys} is left; it is asked as soon as they are answered (a core step).
 *
 * <p>Invariant, checked on every change and kept on: {@code 0 <= reserved <= total}. The
 * leadership's event thread only; {@link #reservedKeys} may be read anywhere.
 */
final class DrainBudget {
  /** One hand-off's part of the budget, from its ask until its drain ends. */
  static final class Share {
    private int keys;
    private boolean answered;
    private boolean returned;

    private Share(int keys) {
      this.keys = keys;
    }

    /** The cap this hand-off's core is asked with. */
    int cap() {
      return keys;
    }
  }

  private final int totalKeys;
  private final int maxKeys;
  private volatile int reserved;
  private int asking;

  DrainBudget(int totalKeys, int maxKeys) {
    if (maxKeys < 1 || totalKeys < maxKeys) {
      throw new IllegalArgumentException(
          "drain budget " + totalKeys + " keys below the per-range cap " + maxKeys);
    }
    this.totalKeys = totalKeys;
    this.maxKeys = maxKeys;
  }

  /**
   * Whether a hand-off should wait before asking: asks are outstanding and less than a full cap is
   * left (it may be more once they are answered).
   */
  boolean mustWait() {
    return asking > 0 && totalKeys - reserved < maxKeys;
  }

  /** Takes what is left, up to one full cap, for a hand-off about to ask its core. */
  Share take() {
    Share s = new Share(Math.min(maxKeys, totalKeys - reserved));
    reserved += s.keys;
    asking++;
    check();
    return s;
  }

  /** The core began the drain with {@code keys} keys: the share shrinks to them. */
  void begun(Share s, int keys) {
    if (s.returned || s.answered) {
      return;
    }
    if (keys < 0 || keys > s.keys) {
      // The core declines a term that wrote more than the cap: a drain this big is a bug there.
      throw new IllegalStateException(
          "a drain began with " + keys + " keys, over its cap of " + s.keys);
    }
    answer(s);
    reserved -= s.keys - keys;
    s.keys = keys;
    check();
  }

  /**
   * The drain ended (shipped, declined, given up, its term ended, the node stops): at most once.
   */
  void giveBack(Share s) {
    if (s.returned) {
      return;
    }
    answer(s);
    s.returned = true;
    reserved -= s.keys;
    check();
  }

  private void answer(Share s) {
    if (!s.answered) {
      s.answered = true;
      asking--;
    }
  }

  /** Keys held by hand-offs asked or draining now. */
  int reservedKeys() {
    return reserved;
  }

  private void check() {
    if (reserved < 0 || reserved > totalKeys || asking < 0) {
      throw new IllegalStateException(
          "drain budget broken: " + reserved + " of " + totalKeys + " keys, " + asking + " asks");
    }
  }
}
