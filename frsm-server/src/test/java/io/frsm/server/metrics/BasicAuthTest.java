package io.frsm.server.metrics;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BasicAuthTest {
  private static String header(String credentials) {
    return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(UTF_8));
  }

  @Test
  void admits_exactlyTheUserAndPassword() {
    BasicAuth auth = BasicAuth.of("prometheus", "s3cret".getBytes(UTF_8));
    assertTrue(auth.admits(header("prometheus:s3cret")));
    assertTrue(auth.admits("BASIC " + header("prometheus:s3cret").substring(6)), "scheme case");
    assertFalse(auth.admits(header("prometheus:s3cre")));
    assertFalse(auth.admits(header("prometheus:s3cret ")));
    assertFalse(auth.admits(header("Prometheus:s3cret")));
    assertFalse(auth.admits(header("prometheus")));
    assertFalse(auth.admits(header("")));
    assertFalse(auth.admits(null));
    assertFalse(auth.admits(""));
    assertFalse(auth.admits("Basic"));
    assertFalse(auth.admits("Basic %%%"));
    assertFalse(auth.admits("Digest " + header("prometheus:s3cret").substring(6)));
  }

  @Test
  void aPasswordMayHoldColons_theUserMayNot() {
    assertTrue(BasicAuth.of("u", "a:b".getBytes(UTF_8)).admits(header("u:a:b")));
    assertThrows(IllegalArgumentException.class, () -> BasicAuth.of("a:b", new byte[] {1}));
    assertThrows(IllegalArgumentException.class, () -> BasicAuth.of("", new byte[] {1}));
    assertThrows(IllegalArgumentException.class, () -> BasicAuth.of("u", new byte[0]));
  }

  @Test
  void passwordFile_isTheFilesBytes_lessOneTrailingLineBreak(@TempDir Path dir) throws Exception {
    Path unix = Files.writeString(dir.resolve("unix"), "s3cret\n");
    Path windows = Files.writeString(dir.resolve("windows"), "s3cret\r\n");
    Path bare = Files.writeString(dir.resolve("bare"), "s3cret");
    Path twoLines = Files.writeString(dir.resolve("two"), "s3cret\n\n");
    for (Path file : new Path[] {unix, windows, bare}) {
      assertTrue(BasicAuth.fromPasswordFile("u", file).admits(header("u:s3cret")), file.toString());
    }
    assertTrue(BasicAuth.fromPasswordFile("u", twoLines).admits(header("u:s3cret\n")));
    assertTrue(
        BasicAuth.fromPasswordFile("u", Files.writeString(dir.resolve("sp"), " s p "))
            .admits(header("u: s p ")),
        "spaces are part of the password");
  }

  @Test
  void anEmptyOrMissingPasswordFile_isAConfigErrorNamingTheKey(@TempDir Path dir) throws Exception {
    Path empty = Files.writeString(dir.resolve("empty"), "\n");
    for (Path file : new Path[] {empty, dir.resolve("missing")}) {
      ConfigException e =
          assertThrows(ConfigException.class, () -> BasicAuth.fromPasswordFile("u", file));
      assertTrue(e.getMessage().contains("'metrics.basicAuthPasswordFile'"), e.getMessage());
      assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    }
  }

  @Test
  void toString_showsNoSecret() {
    String text = BasicAuth.of("u", "s3cret".getBytes(UTF_8)).toString();
    assertFalse(text.contains("s3cret"), text);
  }
}
