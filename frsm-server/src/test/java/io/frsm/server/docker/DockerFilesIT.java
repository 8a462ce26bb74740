package io.frsm.server.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * No Docker engine runs here, so the image cannot be built in CI. This test checks what the image
 * depends on instead: every file the Dockerfile copies exists after {@code package} (the runnable
 * jar included, with its main class), every {@code FRSM_*} variable in the Dockerfile and the
 * compose file is a real config key or launcher variable, the exposed and published ports are the
 * configured ones, and the health check asks the metrics endpoint's {@code /health}.
 */
class DockerFilesIT {
  private static final Path ROOT = Path.of("..");
  private static final Pattern ENV_NAME = Pattern.compile("\\b(FRSM_[A-Z_]+)\\b");

  @Test
  void dockerfile_copiesFilesThatExist_andRunsTheFrsmServer() throws Exception {
    String dockerfile = Files.readString(ROOT.resolve("docker/Dockerfile"));
    Matcher copy = Pattern.compile("(?m)^COPY\\s+(\\S+)\\s+(\\S+)").matcher(dockerfile);
    int copies = 0;
    while (copy.find()) {
      Path source = ROOT.resolve(copy.group(1));
      assertTrue(Files.exists(source), "Dockerfile copies " + source + " which does not exist");
      copies++;
    }
    assertEquals(3, copies, "jar, launcher and config");
    assertTrue(Files.isExecutable(ROOT.resolve("bin/frsm")), "bin/frsm must be executable");
    try (JarFile jar = new JarFile(ROOT.resolve("frsm-server/target/frsm.jar").toFile())) {
      String main = jar.getManifest().getMainAttributes().getValue("Main-Class");
      assertEquals("io.frsm.server.cli.Frsm", main);
      assertNotNull(jar.getEntry(main.replace('.', '/') + ".class"), "main class inside the jar");
      assertNotNull(
          jar.getEntry("META-INF/services/io.frsm.api.spi.ClientProvider"),
          "the thin-client provider is registered in the jar");
    }
    assertTrue(dockerfile.contains("ENTRYPOINT [\"/opt/frsm/bin/frsm\", \"server\"]"));
    assertTrue(dockerfile.contains("USER frsm"), "runs as a non-root user");
    assertTrue(Files.readString(ROOT.resolve("bin/frsm")).contains("frsm.jar"));
  }

  @Test
  void environmentVariables_areConfigKeys_andPortsMatchTheConfig() throws Exception {
    String dockerfile = Files.readString(ROOT.resolve("docker/Dockerfile"));
    String compose = Files.readString(ROOT.resolve("docker/docker-compose.yml"));
    Set<String> known = new TreeSet<>(Set.of("FRSM_CONFIG", "FRSM_JAVA_OPTS", "FRSM_HOME"));
    for (String key : ConfigLoader.keys()) {
      known.add(ConfigLoader.environmentName(key));
    }
    for (String text : List.of(dockerfile, compose)) {
      Matcher m = ENV_NAME.matcher(text);
      while (m.find()) {
        assertTrue(known.contains(m.group(1)), m.group(1) + " is not a config key");
      }
    }
    // The shipped config, with the node-specific variables compose sets, loads.
    Map<String, String> env = new HashMap<>();
    env.put("FRSM_NODE_ID", "2");
    env.put("FRSM_ZOOKEEPER_CONNECT", "zookeeper:2181");
    env.put("FRSM_NODE_DATA_DIRECTORY", "/var/lib/frsm/data");
    FrsmConfig config = ConfigLoader.load(ROOT.resolve("config/frsm.yaml"), env);
    Set<String> ports =
        Set.of(
            Integer.toString(config.peerAddress().getPort()),
            Integer.toString(config.clientAddress().getPort()),
            Integer.toString(config.metricsPort()));
    Matcher expose = Pattern.compile("(?m)^EXPOSE\\s+(.+)$").matcher(dockerfile);
    assertTrue(expose.find());
    assertEquals(ports, Set.of(expose.group(1).trim().split("\\s+")));
    Matcher published = Pattern.compile("\"\\d+:(\\d+)\"").matcher(compose);
    while (published.find()) {
      assertTrue(
          ports.contains(published.group(1)),
          "compose publishes unknown port " + published.group(1));
    }
    assertTrue(
        dockerfile.contains("/dev/tcp/127.0.0.1/" + config.metricsPort())
            && dockerfile.contains("GET /health"),
        "the health check asks /health on the metrics port");
    for (int node = 1; node <= 3; node++) {
      assertTrue(compose.contains("FRSM_NODE_ID: \"" + node + "\""), "compose runs node " + node);
    }
  }
}
