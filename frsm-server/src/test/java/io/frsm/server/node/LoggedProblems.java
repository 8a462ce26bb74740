package io.frsm.server.node;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records what is logged at SEVERE, and counts what is logged at WARNING, under some loggers
 * (java.util.logging; Curator and ZooKeeper log there through slf4j) from {@link #capture} until
 * {@link #close}. The loggers are held while capturing, so their handler stays in place.
 */
final class LoggedProblems implements AutoCloseable {
  /** Where the libraries and frsm log. */
  static final List<String> LIBRARIES_AND_FRSM = List.of("org.apache", "io.frsm");

  private final List<Logger> loggers;
  private final List<String> severe = new CopyOnWriteArrayList<>();
  private final AtomicInteger warnings = new AtomicInteger();
  private final List<String> warningRecords = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          int level = record.getLevel().intValue();
          if (level >= Level.SEVERE.intValue()) {
            severe.add(record.getLoggerName() + ": " + record.getMessage());
          } else if (level >= Level.WARNING.intValue()) {
            warnings.incrementAndGet();
            warningRecords.add(record.getLoggerName() + ": " + record.getMessage());
          }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private LoggedProblems(List<String> loggerNames) {
    this.loggers = loggerNames.stream().map(Logger::getLogger).toList();
    loggers.forEach(l -> l.addHandler(handler));
  }

  /** Starts capturing under {@code loggerNames} (and the loggers below them). */
  static LoggedProblems capture(List<String> loggerNames) {
    return new LoggedProblems(loggerNames);
  }

  /** Logger name and message of every SEVERE record so far. */
  List<String> severe() {
    return List.copyOf(severe);
  }

  /** WARNING records so far. */
  int warnings() {
    return warnings.get();
  }

  /** Logger name and message of every WARNING record so far. */
  List<String> warningRecords() {
    return List.copyOf(warningRecords);
  }

  @Override
  public void close() {
    loggers.forEach(l -> l.removeHandler(handler));
  }
}
