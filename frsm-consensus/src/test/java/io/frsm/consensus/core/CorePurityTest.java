package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The consensus core stays pure (STYLE.md §1): no threads, locks, clocks, ambient randomness, file
 * I/O or mutable statics in {@code io.frsm.consensus.core}, and no import from outside the JDK, the
 * public API, the cell model and the core itself (the build's dependency rule keeps other modules
 * off the class path; this keeps the sources honest too, e.g. against a test-scoped library). A
 * source scan, so the rule is part of the build.
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

  /** The packages a core source may import from (types or static members). */
  private static final List<String> ALLOWED_IMPORTS =
      List.of("java.", "io.frsm.api.", "io.frsm.cell.", "io.frsm.consensus.core.");

  private static final Pattern IMPORT = Pattern.compile("^\\s*import\\s+(?:static\\s+)?([\\w.]+)");

  @Test
  void coreSources_importOnlyTheJdkApiCellAndCore() throws IOException {
    List<String> hits = new ArrayList<>();
    for (Path source : sources()) {
      hits.addAll(
          importsOutsideTheCore(source.getFileName().toString(), Files.readAllLines(source)));
    }
    assertEquals(List.of(), hits);
  }

  @Test
  void importCheck_flagsAPlantedImport_andPassesTheAllowedOnes() {
    List<String> planted =
        List.of(
            "package io.frsm.consensus.core;",
            "import java.util.List;",
            "import static io.frsm.cell.Ballot.NONE;",
            "import io.frsm.consensus.core.Effect;",
            "import io.netty.buffer.ByteBuf;",
            "import static org.slf4j.LoggerFactory.getLogger;",
            "import io.frsm.transport.PeerTransport;",
            "import javax.annotation.Nullable;");
    assertEquals(
        List.of(
            "Planted.java:5 imports io.netty.buffer.ByteBuf",
            "Planted.java:6 imports org.slf4j.LoggerFactory.getLogger",
            "Planted.java:7 imports io.frsm.transport.PeerTransport",
            "Planted.java:8 imports javax.annotation.Nullable"),
        importsOutsideTheCore("Planted.java", planted));
  }

  /**
   * The imports of {@code lines} (a source named {@code file}) from outside the allowed packages.
   */
  static List<String> importsOutsideTheCore(String file, List<String> lines) {
    List<String> hits = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = IMPORT.matcher(lines.get(i));
      if (m.find() && ALLOWED_IMPORTS.stream().noneMatch(m.group(1)::startsWith)) {
        hits.add(file + ":" + (i + 1) + " imports " + m.group(1));
      }
    }
    return hits;
  }

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
