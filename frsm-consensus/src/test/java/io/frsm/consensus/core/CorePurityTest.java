package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The consensus core stays pure (STYLE.md §1): no threads, locks, clocks, ambient randomness, file
 * I/O or mutable statics in {@code io.frsm.consensus.core}. A source scan, so the rule is part of
 * the build.
 */
class CorePurityTest {
  private static final Path CORE = Path.of("src/main/java/io/frsm/consensus/core");

  private static final List<String> FORBIDDEN =
      List.of(
          "System.nanoTime",
          "currentTimeMillis",
          "Instant.now",
          "Clock.system",
          "LocalDateTime.now",
          "Thread",
          "synchronized",
          "ThreadLocalRandom",
          "new Random",
          "Math.random",
          "java.util.Random",
          "java.util.concurrent",
          "java.io.File",
          "java.nio.file",
          "java.net",
          "Executor");

  @Test
  void coreSources_useNoForbiddenApi() throws IOException {
    List<String> hits = new ArrayList<>();
    List<Path> sources = sources();
    assertTrue(sources.size() >= 10, "found the core sources: " + sources);
    for (Path source : sources) {
      List<String> lines = Files.readAllLines(source);
      for (int i = 0; i < lines.size(); i++) {
        String code = stripComment(lines.get(i));
        for (String api : FORBIDDEN) {
          if (code.contains(api)) {
            hits.add(source.getFileName() + ":" + (i + 1) + " uses " + api);
          }
        }
        if (code.matches(".*\\bstatic\\b(?!.*\\bfinal\\b).*[=;].*") && !code.contains("(")) {
          hits.add(source.getFileName() + ":" + (i + 1) + " declares a mutable static");
        }
      }
    }
    assertEquals(List.of(), hits);
  }

  private static List<Path> sources() throws IOException {
    try (Stream<Path> files = Files.list(CORE)) {
      return files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
    }
  }

  /** Drops a trailing line comment and Javadoc/comment lines, which may name forbidden APIs. */
  private static String stripComment(String line) {
    String t = line.trim();
    if (t.startsWith("*") || t.startsWith("/*") || t.startsWith("//")) {
      return "";
    }
    int slash = line.indexOf("//");
    return slash >= 0 ? line.substring(0, slash) : line;
  }
}
