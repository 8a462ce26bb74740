package io.frsm.server.config;

import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses sizes ({@code 64MiB}, {@code 512KiB}, {@code 1GiB}, {@code 4096}) and durations. */
final class Units {
  private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB|TiB)?");
  private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(us|ms|s|m|h|d)");

  private Units() {}

  /** A byte count: a number, or a number with B, KiB, MiB, GiB or TiB (powers of 1024). */
  static long bytes(String key, Object value) {
    if (value instanceof Number) {
      long n = longValue(key, value);
      if (n < 0) {
        throw new ConfigException("config key '" + key + "': " + value + " is negative");
      }
      return n;
    }
    Matcher m = SIZE.matcher(String.valueOf(value).trim());
    if (!m.matches()) {
      throw new ConfigException(
          "config key '"
              + key
              + "': '"
              + value
              + "' is not a size (e.g. 4096, 512KiB, 64MiB, 1GiB)");
    }
    long n = number(key, value, m.group(1));
    String unit = m.group(2) == null ? "B" : m.group(2);
    long factor =
        switch (unit) {
          case "KiB" -> 1L << 10;
          case "MiB" -> 1L << 20;
          case "GiB" -> 1L << 30;
          case "TiB" -> 1L << 40;
          default -> 1;
        };
    try {
      return Math.multiplyExact(n, factor);
    } catch (ArithmeticException e) {
      throw new ConfigException("config key '" + key + "': '" + value + "' is too large");
    }
  }

  /** A duration: a number with ms, s, m, h or d. */
  static Duration duration(String key, Object value) {
    Matcher m = DURATION.matcher(String.valueOf(value).trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new ConfigException(
          "config key '"
              + key
              + "': '"
              + value
              + "' is not a duration (e.g. 500us, 500ms, 5s, 30m, 24h)");
    }
    long n = number(key, value, m.group(1));
    try {
      return switch (m.group(2)) {
        case "us" -> Duration.ofNanos(Math.multiplyExact(n, 1_000L));
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        case "h" -> Duration.ofHours(n);
        default -> Duration.ofDays(n);
      };
    } catch (ArithmeticException e) {
      throw new ConfigException("config key '" + key + "': '" + value + "' is too long");
    }
  }

  /**
   * A byte count that must fit an {@code int} (sizes the engine or transport keep in one buffer or
   * array): a larger value is an error naming the key, never a silent wrap-around.
   */
  static int intBytes(String key, Object value) {
    long n = bytes(key, value);
    if (n > Integer.MAX_VALUE) {
      throw new ConfigException(
          "config key '" + key + "': '" + value + "' is too large (at most 2GiB - 1 byte)");
    }
    return (int) n;
  }

  /**
   * {@code d} as the file would write it (20ms, 5s, 30m, 24h, 500us); a value the file cannot write
   * (a negative one, or below a microsecond) as {@link Duration#toString()}.
   */
  static String format(Duration d) {
    if (d.isNegative() || d.getNano() % 1_000 != 0) {
      return d.toString();
    }
    if (d.getNano() % 1_000_000 != 0) {
      try {
        return d.toNanos() / 1_000 + "us";
      } catch (ArithmeticException beyondNanos) {
        return d.toString();
      }
    }
    long ms;
    try {
      ms = d.toMillis();
    } catch (ArithmeticException beyondMillis) {
      return d.toString();
    }
    if (ms != 0 && ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms != 0 && ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms != 0 && ms % 1_000 == 0) {
      return ms / 1_000 + "s";
    }
    return ms + "ms";
  }

  /** {@code bytes} in the largest unit that holds it whole, as the file would write it: 64MiB. */
  static String formatBytes(long bytes) {
    String[] units = {"TiB", "GiB", "MiB", "KiB"};
    for (int i = 0; i < units.length; i++) {
      long factor = 1L << (10 * (units.length - i));
      if (bytes != 0 && bytes % factor == 0) {
        return bytes / factor + units[i];
      }
    }
    return Long.toString(bytes);
  }

  /** The digits of a size or duration; more than a long holds is an error naming the key. */
  private static long number(String key, Object value, String digits) {
    try {
      return Long.parseLong(digits);
    } catch (NumberFormatException e) {
      throw new ConfigException("config key '" + key + "': '" + value + "' is too large");
    }
  }

  static int integer(String key, Object value) {
    long v = longValue(key, value);
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new ConfigException("config key '" + key + "': " + value + " is out of range");
    }
    return (int) v;
  }

  static long longValue(String key, Object value) {
    if (value instanceof Integer || value instanceof Long) {
      return ((Number) value).longValue();
    }
    if (value instanceof java.math.BigInteger) {
      throw new ConfigException("config key '" + key + "': " + value + " is out of range");
    }
    try {
      return Long.parseLong(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("config key '" + key + "': '" + value + "' is not an integer");
    }
  }

  static double decimal(String key, Object value) {
    if (value instanceof Number n) {
      return n.doubleValue();
    }
    try {
      return Double.parseDouble(String.valueOf(value).trim());
    } catch (NumberFormatException e) {
      throw new ConfigException("config key '" + key + "': '" + value + "' is not a number");
    }
  }

  static boolean bool(String key, Object value) {
    if (value instanceof Boolean b) {
      return b;
    }
    String s = String.valueOf(value).trim().toLowerCase(Locale.ROOT);
    if (s.equals("true") || s.equals("false")) {
      return Boolean.parseBoolean(s);
    }
    throw new ConfigException("config key '" + key + "': '" + value + "' is not true or false");
  }

  static String text(String key, Object value) {
    if (value instanceof java.util.Map || value instanceof java.util.List) {
      throw new ConfigException("config key '" + key + "' must be a single value");
    }
    String text = value == null ? "" : String.valueOf(value).trim();
    if (text.isEmpty()) {
      // An empty host, id or directory never means a default: leave the key out for that.
      throw new ConfigException("config key '" + key + "' must not be empty");
    }
    return text;
  }

  /** A file-system path, or an error naming the key (a character the file system refuses). */
  static java.nio.file.Path path(String key, String text) {
    try {
      return java.nio.file.Path.of(text);
    } catch (java.nio.file.InvalidPathException e) {
      throw new ConfigException(
          "config key '" + key + "' is not a valid path: '" + text + "' (" + e.getReason() + ")");
    }
  }
}
