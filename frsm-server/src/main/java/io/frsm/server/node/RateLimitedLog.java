package io.frsm.server.node;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A log line per kind of event at most once per interval, however often the event happens, saying
 * how many were left out since the last line: what one client or peer sends cannot flood the log.
 * The counters and meters beside it count every event. Thread-safe.
 */
final class RateLimitedLog {
  private final Logger logger;
  private final Level level;
  private final long intervalNanos;
  private final AtomicLong nextLineNanos;
  private final AtomicLong leftOut = new AtomicLong();

  RateLimitedLog(Logger logger, Level level, long interval, TimeUnit unit) {
    this.logger = logger;
    this.level = level;
    this.intervalNanos = unit.toNanos(interval);
    this.nextLineNanos = new AtomicLong(System.nanoTime());
  }

  /**
   * Logs {@code message} (and {@code error}'s stack, if not null) unless a line went out lately.
   */
  void log(String message, Throwable error) {
    long now = System.nanoTime();
    long next = nextLineNanos.get();
    if (now - next < 0 || !nextLineNanos.compareAndSet(next, now + intervalNanos)) {
      leftOut.incrementAndGet();
      return;
    }
    long skipped = leftOut.getAndSet(0);
    String line = skipped == 0 ? message : message + " (" + skipped + " more like it not logged)";
    if (error == null) {
      logger.log(level, line);
    } else {
      logger.log(level, line, error);
    }
  }
}
