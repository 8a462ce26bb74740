package io.frsm.server.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** {@code --name value} options and positional arguments, checked against the allowed names. */
final class Args {
  final Map<String, String> options = new HashMap<>();
  final List<String> positional = new ArrayList<>();

  static Args parse(List<String> raw, Set<String> allowed) {
    Args a = new Args();
    for (int i = 0; i < raw.size(); i++) {
      String s = raw.get(i);
      if (s.startsWith("--")) {
        String name = s.substring(2);
        if (!allowed.contains(name)) {
          throw new UsageException("unknown option --" + name + " (allowed: " + allowed + ")");
        }
        if (i + 1 >= raw.size()) {
          throw new UsageException("option --" + name + " needs a value");
        }
        a.options.put(name, raw.get(++i));
      } else {
        a.positional.add(s);
      }
    }
    return a;
  }

  String get(String name, String fallback) {
    return options.getOrDefault(name, fallback);
  }

  int integer(String name, int fallback) {
    String v = options.get(name);
    if (v == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(v);
    } catch (NumberFormatException e) {
      throw new UsageException("--" + name + " needs an integer, got '" + v + "'");
    }
  }

  String required(String name) {
    String v = options.get(name);
    if (v == null) {
      throw new UsageException("--" + name + " is required");
    }
    return v;
  }

  /** A wrong command line: printed with the usage, exit code 2. */
  static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}
