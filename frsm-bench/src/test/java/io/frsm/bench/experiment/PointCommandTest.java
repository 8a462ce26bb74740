package io.frsm.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code experiment point}'s arguments: refused before any cluster starts. */
class PointCommandTest {
  @TempDir Path dir;

  private IllegalArgumentException refused(String... args) {
    PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    return assertThrows(IllegalArgumentException.class, () -> PointCommand.main(args, out));
  }

  @Test
  void aThinClient_isFrsmsOnly_andTheClientKindMustBeKnown() throws Exception {
    Path data = dir.resolve("data");
    String[] common = {
      "--clients", "1", "--seconds", "1", "--keys", "10", "--data", data.toString()
    };
    IllegalArgumentException crsm =
        refused(concat(new String[] {"--system", "crsm", "--client", "thin"}, common));
    assertTrue(crsm.getMessage().contains("--client thin needs --system frsm"), crsm.getMessage());
    IllegalArgumentException unknown =
        refused(concat(new String[] {"--system", "frsm", "--client", "fat"}, common));
    assertTrue(unknown.getMessage().contains("embedded or thin"), unknown.getMessage());
    assertTrue(!Files.exists(data), "no cluster was started");
  }

  private static String[] concat(String[] a, String[] b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }
}
