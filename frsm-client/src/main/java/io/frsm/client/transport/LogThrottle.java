package io.frsm.client.transport;

import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs one kind of event at most once per interval, with the number of like events left unlogged
 * since: a remote party that repeats a refused act thousands of times a second cannot flood the log
 * (issue 24: 30,000 resets wrote 30,000 lines). The events are counted by meters anyway; the log
 * only says that, and what the latest looked like. Thread-safe.
 */
public final class LogThrottle {
  private final System.Logger log;
  private final Level level;
  private final long intervalNanos;
  private final AtomicLong nextNanos;
  private final AtomicLong suppressed = new AtomicLong();

  public LogThrottle(System.Logger log, Level level, long interval, TimeUnit unit) {
    this.log = log;
    this.level = level;
    this.intervalNanos = unit.toNanos(interval);
    this.nextNanos = new AtomicLong(System.nanoTime());
  }

  /**
   * Logs {@code message} (a {@link java.text.MessageFormat} pattern) unless one was just logged.
   */
  public void log(String message, Object... params) {
    long now = System.nanoTime();
    long next = nextNanos.get();
    if (now - next < 0 || !nextNanos.compareAndSet(next, now + intervalNanos)) {
      suppressed.incrementAndGet();
      return;
    }
    long skipped = suppressed.getAndSet(0);
    String text = java.text.MessageFormat.format(message, params);
    log.log(level, skipped == 0 ? text : text + " (and " + skipped + " more like it, not logged)");
  }
}
