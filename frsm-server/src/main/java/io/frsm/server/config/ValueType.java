package io.frsm.server.config;

import io.frsm.lsm.commitlog.GroupCommitWindow;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * How the values of one kind of key are written in the file and in {@code FRSM_*} variables: the
 * unit the documentation names, the parser, and the printer that writes a value back the way the
 * file would (for the documented defaults and for error messages). Parsers throw a {@link
 * ConfigException} naming the key.
 */
final class ValueType<T> {
  private final String unit;
  private final BiFunction<String, Object, T> parser;
  private final Function<T, String> printer;

  private ValueType(
      String unit, BiFunction<String, Object, T> parser, Function<T, String> printer) {
    this.unit = unit;
    this.parser = parser;
    this.printer = printer;
  }

  static final ValueType<String> TEXT = new ValueType<>("text", Units::text, s -> s);
  static final ValueType<Integer> INTEGER =
      new ValueType<>("integer", Units::integer, String::valueOf);
  static final ValueType<Boolean> BOOLEAN =
      new ValueType<>("boolean", Units::bool, String::valueOf);
  static final ValueType<Double> DECIMAL =
      new ValueType<>("number", Units::decimal, String::valueOf);
  static final ValueType<Long> BYTES = new ValueType<>("bytes", Units::bytes, Units::formatBytes);

  /** Sizes the engine or the transport keep in one buffer or array: at most 2GiB - 1 byte. */
  static final ValueType<Integer> INT_BYTES =
      new ValueType<>("bytes", Units::intBytes, v -> Units.formatBytes(v));

  static final ValueType<Duration> DURATION =
      new ValueType<>("duration", Units::duration, Units::format);
  static final ValueType<Path> PATH =
      new ValueType<>("path", (k, v) -> Units.path(k, Units.text(k, v)), Path::toString);
  static final ValueType<List<Path>> PATHS =
      new ValueType<>("paths", ValueType::paths, List::toString);

  /** {@code host:port}, unresolved as written: the node resolves it when it binds. */
  static final ValueType<InetSocketAddress> ADDRESS =
      new ValueType<>("host:port", ValueType::address, a -> a.getHostString() + ":" + a.getPort());

  static final ValueType<CorePlacement> CORE_PLACEMENT =
      new ValueType<>("auto, true or false", ValueType::corePlacement, CorePlacement::configName);

  static final ValueType<GroupCommitWindow> GROUP_COMMIT_WINDOW =
      new ValueType<>("auto or duration", ValueType::groupCommitWindow, ValueType::window);

  String unit() {
    return unit;
  }

  T parse(String key, Object raw) {
    return parser.apply(key, raw);
  }

  String print(T value) {
    return value == null ? "(unset)" : printer.apply(value);
  }

  private static List<Path> paths(String key, Object value) {
    List<Path> out = new ArrayList<>();
    if (value instanceof List<?> list) {
      for (Object o : list) {
        out.add(Units.path(key, Units.text(key, o)));
      }
    } else {
      for (String s : Units.text(key, value).split(",")) {
        if (!s.isBlank()) {
          out.add(Units.path(key, s.trim()));
        }
      }
    }
    if (out.isEmpty()) {
      throw new ConfigException("config key '" + key + "' needs at least one directory");
    }
    return List.copyOf(out);
  }

  private static InetSocketAddress address(String key, Object value) {
    String s = Units.text(key, value);
    int colon = s.lastIndexOf(':');
    if (colon <= 0 || colon == s.length() - 1) {
      throw new ConfigException("config key '" + key + "': '" + s + "' is not host:port");
    }
    int port = Units.integer(key, s.substring(colon + 1));
    if (port < 0 || port > 65535) {
      throw new ConfigException("config key '" + key + "': port " + port + " out of range");
    }
    return InetSocketAddress.createUnresolved(s.substring(0, colon), port);
  }

  private static CorePlacement corePlacement(String key, Object value) {
    CorePlacement p = CorePlacement.parse(String.valueOf(value)); // YAML's true reads as "true"
    if (p == null) {
      throw new ConfigException(
          "config key '" + key + "': '" + value + "' is not auto, true or false");
    }
    return p;
  }

  private static GroupCommitWindow groupCommitWindow(String key, Object value) {
    if (String.valueOf(value).trim().equalsIgnoreCase(GroupCommitWindow.AUTO_NAME)) {
      return GroupCommitWindow.AUTO;
    }
    try {
      return GroupCommitWindow.fixed(Units.duration(key, value));
    } catch (IllegalArgumentException e) { // a ConfigException too: not a duration at all
      throw new ConfigException(
          "config key '"
              + key
              + "': '"
              + value
              + "' is neither auto nor a duration of at most "
              + Units.format(GroupCommitWindow.MAX)
              + " (e.g. 1ms)");
    }
  }

  private static String window(GroupCommitWindow w) {
    return w.equals(GroupCommitWindow.AUTO) ? GroupCommitWindow.AUTO_NAME : Units.format(w.limit());
  }
}
