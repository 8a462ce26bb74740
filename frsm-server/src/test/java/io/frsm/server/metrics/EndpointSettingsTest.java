package io.frsm.server.metrics;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigException;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EndpointSettingsTest {
  // The metrics settings are what is tested; the node's TLS is not: plaintext, said explicitly
  // (ConfigRules refuses a node with neither TLS files nor security.insecure).
  private static final String MINIMAL =
      "node:\n  id: 1\n  dataDirectory: /d\n  peerAddress: 127.0.0.1:7400\n  clientAddress: 127.0.0.1:7500\nzookeeper:\n  connect: z:1\n"
          + "security:\n  insecure: true\n";

  private static FrsmConfig load(String metricsSection, Map<String, String> env) {
    return ConfigLoader.load(new StringReader(MINIMAL + metricsSection), "test", env);
  }

  @Test
  void byDefault_loopbackOnly_withTheDefaultLimits_andNoAuthentication() {
    EndpointSettings s = EndpointSettings.fromConfig(load("", Map.of()));
    assertTrue(s.address().getAddress().isLoopbackAddress(), s.address().toString());
    assertEquals(9404, s.address().getPort());
    assertEquals(32, s.maxConnections());
    assertEquals(Duration.ofSeconds(5), s.requestTimeout());
    assertTrue(s.basicAuth().isEmpty());
    assertEquals(EndpointSettings.defaults(s.address()), s);
  }

  @Test
  void everyKey_isRead_fromTheFileAndTheEnvironment(@TempDir Path dir) throws Exception {
    Path password = Files.writeString(dir.resolve("password"), "s3cret\n");
    EndpointSettings s =
        EndpointSettings.fromConfig(
            load(
                "metrics:\n  port: 9500\n  bindAddress: 0.0.0.0\n  maxConnections: 3\n"
                    + "  basicAuthUser: prometheus\n",
                Map.of(
                    "FRSM_METRICS_REQUEST_TIMEOUT",
                    "750ms",
                    "FRSM_METRICS_BASIC_AUTH_PASSWORD_FILE",
                    password.toString())));
    assertTrue(s.address().getAddress().isAnyLocalAddress());
    assertEquals(9500, s.address().getPort());
    assertEquals(3, s.maxConnections());
    assertEquals(Duration.ofMillis(750), s.requestTimeout());
    assertTrue(
        s.basicAuth()
            .orElseThrow()
            .admits(
                "Basic "
                    + Base64.getEncoder().encodeToString("prometheus:s3cret".getBytes(UTF_8))));
  }

  @Test
  void halfACredential_isRefused_namingBothKeys(@TempDir Path dir) throws Exception {
    Path password = Files.writeString(dir.resolve("password"), "s3cret");
    for (String half :
        new String[] {
          "metrics:\n  basicAuthUser: prometheus\n",
          "metrics:\n  basicAuthPasswordFile: " + password + "\n"
        }) {
      FrsmConfig config = load(half, Map.of());
      ConfigException e =
          assertThrows(ConfigException.class, () -> EndpointSettings.fromConfig(config));
      assertTrue(e.getMessage().contains("'metrics.basicAuthUser'"), e.getMessage());
      assertTrue(e.getMessage().contains("'metrics.basicAuthPasswordFile'"), e.getMessage());
    }
  }

  @Test
  void aUserWithAColon_isRefusedByTheLoader() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> load("metrics:\n  basicAuthUser: a:b\n", Map.of()));
    assertTrue(e.getMessage().contains("'metrics.basicAuthUser'"), e.getMessage());
  }
}
