package io.frsm.server.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.LogManager;

/**
 * What the frsm commands log. frsm logs through {@link System.Logger} and ZooKeeper, Curator and
 * Netty through SLF4J (slf4j-jdk14): everything ends in java.util.logging, configured here once, at
 * the start of a command, before anything logs. One line per record on standard error.
 *
 * <p>By default the libraries (every logger outside {@code io.frsm}) log warnings and errors only:
 * their INFO lines (sessions, connections, elections) would bury what a command prints. frsm's own
 * level is the command's choice: a server keeps INFO, the interactive commands keep warnings. Every
 * warning and error stays visible. {@code FRSM_LOG_LEVEL} (a java.util.logging level: {@code INFO},
 * {@code FINE}, ...) sets every logger, libraries included; an explicit {@code
 * -Djava.util.logging.config.file} wins over both.
 */
public final class CliLogging {
  /** The environment variable that sets every logger's level. */
  public static final String LEVEL_VARIABLE = "FRSM_LOG_LEVEL";

  /** {@code 2026-11-26 10:15:02.123 WARNING io.frsm.server.node.FrsmNode: message}. */
  static final String FORMAT = "%1$tF %1$tT.%1$tL %4$s %3$s: %5$s%6$s%n";

  private CliLogging() {}

  /**
   * The levels of a command whose libraries log warnings and errors only and whose frsm loggers log
   * at {@code frsm}, by logger name ({@code ""}: the root, so every library).
   */
  public static Map<String, Level> defaults(Level frsm) {
    Map<String, Level> levels = new LinkedHashMap<>();
    levels.put("", Level.WARNING);
    levels.put("io.frsm", frsm);
    // Warns at every start of a server without a connection limit ("maxCnxns is not configured,
    // using default value 0"), which the embedded ZooKeeper of frsm local and demo is by design:
    // nothing is wrong. Its errors still show.
    levels.put("org.apache.zookeeper.server.ServerCnxnFactory", Level.SEVERE);
    return levels;
  }

  /** Every logger at {@code level}. */
  public static Map<String, Level> all(Level level) {
    return Map.of("", level);
  }

  /**
   * Configures java.util.logging: each logger named in {@code levels} (and those below it) at its
   * level, unless {@code environment} has {@link #LEVEL_VARIABLE} (then every logger at that level)
   * or a logging configuration file was given.
   *
   * @throws IllegalArgumentException if {@link #LEVEL_VARIABLE} is not a level
   */
  public static void configure(Map<String, Level> levels, Map<String, String> environment) {
    if (System.getProperty("java.util.logging.config.file") != null) {
      return;
    }
    String override = environment.get(LEVEL_VARIABLE);
    if (override != null && !override.isBlank()) {
      levels = all(parse(override));
    }
    Properties p = new Properties();
    p.setProperty("handlers", "java.util.logging.ConsoleHandler");
    p.setProperty("java.util.logging.ConsoleHandler.level", "ALL");
    p.setProperty("java.util.logging.SimpleFormatter.format", FORMAT);
    levels.forEach((logger, level) -> p.setProperty(logger + ".level", level.getName()));
    // Set before any logger exists: LogManager applies these levels to loggers created later too,
    // so no reference to a configured logger has to be kept.
    try {
      ByteArrayOutputStream text = new ByteArrayOutputStream();
      p.store(text, null);
      LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(text.toByteArray()));
    } catch (IOException e) {
      throw new UncheckedIOException("in-memory logging configuration", e);
    }
  }

  private static Level parse(String name) {
    try {
      return Level.parse(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          LEVEL_VARIABLE
              + " must be a java.util.logging level (SEVERE, WARNING, INFO, FINE, FINER, FINEST,"
              + " ALL, OFF), was '"
              + name
              + "'");
    }
  }
}
