package io.frsm.lsm.commitlog;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Collects what a class logs through {@code System.getLogger}, which the JDK routes to
 * java.util.logging when no other backend is installed.
 */
final class LogCapture extends Handler implements AutoCloseable {
  private final Logger logger;
  private final List<LogRecord> records = new ArrayList<>();

  LogCapture(Class<?> source) {
    this.logger = Logger.getLogger(source.getName());
    logger.addHandler(this);
  }

  /** Formatted messages at {@code level} exactly. */
  synchronized List<String> messages(Level level) {
    List<String> out = new ArrayList<>();
    for (LogRecord r : records) {
      if (r.getLevel().equals(level)) {
        out.add(
            r.getParameters() == null
                ? r.getMessage()
                : MessageFormat.format(r.getMessage(), r.getParameters()));
      }
    }
    return out;
  }

  @Override
  public synchronized void publish(LogRecord record) {
    records.add(record);
  }

  @Override
  public void flush() {}

  @Override
  public void close() {
    logger.removeHandler(this);
  }
}
