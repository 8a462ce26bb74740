package io.frsm.client;

import java.util.concurrent.atomic.LongAdder;

/**
 * What session ordering did beyond running calls ({@link KeySessions}), summed over every client
 * that shares this object (a node shares one across its embedded clients, for its metrics).
 * Thread-safe.
 */
public final class SessionCounters {
  private final LongAdder readsRerun = new LongAdder();
  private final LongAdder casUnsent = new LongAdder();

  /** Reads run a second time because they came back older than the read before them. */
  public long readsRerun() {
    return readsRerun.sum();
  }

  /**
   * CAS and delete calls answered by a read instead of being sent: they expected a version older
   * than one the client had already seen, so they could not succeed.
   */
  public long casUnsent() {
    return casUnsent.sum();
  }

  void readRerun() {
    readsRerun.increment();
  }

  void casAnsweredByRead() {
    casUnsent.increment();
  }
}
