package io.frsm.server.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.config.ConfigKey;
import io.frsm.server.config.ConfigLoader;
import io.frsm.server.config.FrsmConfig;
import io.frsm.server.config.MetricsKeys;
import io.frsm.server.config.NodeKeys;
import io.frsm.server.config.SecurityKeys;
import io.frsm.server.config.ZooKeeperKeys;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * No Docker engine runs here, so the image cannot be built in CI. This test checks what the image
 * and the compose file depend on instead: every file the Dockerfile copies exists after {@code
 * package} (the runnable jar included, with its main class), every {@code FRSM_*} variable in the
 * Dockerfile and the compose file is a real config key or launcher variable, the exposed and
 * published ports are the configured ones, the health check asks the metrics endpoint's {@code
 * /health} where the endpoint listens; and for each compose node: the config file it mounts exists
 * in the repository and loads with the node's environment (the loader refuses unknown keys), it
 * dials the compose ZooKeeper service by its name and port, peers reach it by its service name, its
 * data lives on a volume, and its metrics endpoint listens where its published port and the health
 * check reach it.
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
    assertTrue(
        dockerfile.contains("-XX:+ExitOnOutOfMemoryError"),
        "a node out of heap exits, so that its supervisor restarts it");
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
    // "host:container" or "ip:host:container"
    Matcher published = Pattern.compile("\"(?:[\\d.]+:)?\\d+:(\\d+)\"").matcher(compose);
    int publishedPorts = 0;
    while (published.find()) {
      assertTrue(
          ports.contains(published.group(1)),
          "compose publishes unknown port " + published.group(1));
      publishedPorts++;
    }
    assertEquals(6, publishedPorts, "client and metrics port of each compose node");
    assertTrue(
        dockerfile.contains("/dev/tcp/127.0.0.1/${FRSM_METRICS_PORT:-" + config.metricsPort() + "}")
            && dockerfile.contains("GET /health"),
        "the health check asks /health on the metrics port");
    assertTrue(
        reachableOnLoopback(config.get(MetricsKeys.BIND_ADDRESS)),
        "the health check dials 127.0.0.1: the image's endpoint must listen there");
    for (int node = 1; node <= 3; node++) {
      assertTrue(compose.contains("FRSM_NODE_ID: \"" + node + "\""), "compose runs node " + node);
    }
  }

  @Test
  void composeNodes_loadTheMountedConfig_withTheirEnvironment_andFindTheComposeZooKeeper()
      throws Exception {
    Path dockerDir = ROOT.resolve("docker");
    Map<String, String> imageEnv =
        dockerfileEnvironment(Files.readString(dockerDir.resolve("Dockerfile")));
    String configPath = imageEnv.get("FRSM_CONFIG");
    assertNotNull(configPath, "the image names its config file");
    Map<String, Object> compose =
        map(
            new Yaml(new SafeConstructor(new LoaderOptions()))
                .load(Files.readString(dockerDir.resolve("docker-compose.yml"))));
    Map<String, Object> services = map(compose.get("services"));
    Set<String> namedVolumes = map(compose.get("volumes")).keySet();

    List<String> zookeepers =
        services.keySet().stream()
            .filter(n -> String.valueOf(map(services.get(n)).get("image")).startsWith("zookeeper:"))
            .toList();
    assertEquals(1, zookeepers.size(), "one ZooKeeper service");
    String zookeeper = zookeepers.get(0);
    List<String> zookeeperPorts = strings(map(services.get(zookeeper)).get("expose"));
    // The official image serves clients on 2181; the compose file says so where the nodes can
    // be checked against it.
    assertEquals(List.of("2181"), zookeeperPorts, "the ZooKeeper service exposes its client port");
    String zookeeperConnect = zookeeper + ":" + zookeeperPorts.get(0);

    List<String> nodes =
        services.keySet().stream()
            .filter(n -> String.valueOf(map(services.get(n)).get("image")).startsWith("frsm:"))
            .toList();
    assertEquals(3, nodes.size(), "three frsm nodes");
    Set<Integer> nodeIds = new TreeSet<>();
    for (String name : nodes) {
      Map<String, Object> service = map(services.get(name));
      Map<String, String> env = new HashMap<>(imageEnv);
      map(service.get("environment")).forEach((k, v) -> env.put(k, String.valueOf(v)));

      Path mountedConfig = null;
      boolean dataOnVolume = false;
      for (String volume : strings(service.get("volumes"))) {
        String[] parts = volume.split(":");
        assertTrue(parts.length >= 2, name + ": volume " + volume);
        if (parts[0].startsWith(".") || parts[0].startsWith("/")) {
          Path host = dockerDir.resolve(parts[0]).normalize();
          assertTrue(
              Files.exists(host), name + " mounts " + host + ", which is not in the repository");
          if (parts[1].equals(configPath)) {
            mountedConfig = host;
            assertTrue(
                parts.length == 3 && parts[2].equals("ro"), name + ": config mounted read-only");
          }
        } else {
          assertTrue(namedVolumes.contains(parts[0]), name + ": volume " + parts[0] + " declared");
          dataOnVolume |= parts[1].equals("/var/lib/frsm");
        }
      }
      assertNotNull(mountedConfig, name + " mounts a config file at " + configPath);
      assertTrue(dataOnVolume, name + " keeps /var/lib/frsm on a named volume");

      // Strict: an FRSM_* variable that is no config key, or a bad value, fails here.
      FrsmConfig config = ConfigLoader.load(mountedConfig, env);
      assertTrue(nodeIds.add(config.nodeId()), name + ": node id " + config.nodeId() + " unique");
      assertEquals(
          zookeeperConnect,
          config.get(ZooKeeperKeys.CONNECT),
          name + " dials the ZooKeeper service");
      assertEquals(
          name, config.get(NodeKeys.ADVERTISED_HOST), name + " is reached by its service name");
      assertEquals(
          nodes.size(),
          config.get(NodeKeys.INITIAL_NODES),
          "the cluster forms from the compose nodes");
      assertTrue(
          config.get(NodeKeys.DATA_DIRECTORY).startsWith("/var/lib/frsm"), "data on the volume");
      for (Path log : config.get(NodeKeys.COMMIT_LOG_DIRECTORIES)) {
        assertTrue(log.startsWith("/var/lib/frsm"), "commit log on the volume: " + log);
      }
      Set<String> configPorts =
          Set.of(
              Integer.toString(config.peerAddress().getPort()),
              Integer.toString(config.clientAddress().getPort()),
              Integer.toString(config.metricsPort()));
      List<String> published = strings(service.get("ports"));
      for (String port : published) {
        String container = port.substring(port.lastIndexOf(':') + 1);
        assertTrue(
            configPorts.contains(container), name + " publishes " + port + ", not a config port");
      }
      assertTrue(
          published.stream().anyMatch(p -> p.endsWith(":" + config.metricsPort())),
          name + " publishes its metrics port for Prometheus");
      String bind = config.get(MetricsKeys.BIND_ADDRESS);
      assertTrue(
          InetAddress.getByName(bind).isAnyLocalAddress(),
          name
              + " publishes its metrics port, so its endpoint listens on every interface of the"
              + " container (the published port arrives on one), not on "
              + bind);
      assertTrue(reachableOnLoopback(bind), name + ": the health check reaches the endpoint");

      // Safe defaults: mutual TLS and ZooKeeper authentication from files on the read-only
      // mount, never plaintext; the metrics port on the host's loopback only; the peer port not
      // published (nodes reach each other on the compose network).
      assertFalse(config.get(SecurityKeys.INSECURE), name + " is not insecure");
      String tlsMount =
          strings(service.get("volumes")).stream()
              .filter(v -> v.startsWith("./tls:"))
              .findFirst()
              .orElseThrow(() -> new AssertionError(name + " mounts docker/tls"));
      assertTrue(tlsMount.endsWith(":ro"), name + ": TLS files mounted read-only");
      String tlsDir = tlsMount.split(":")[1];
      for (ConfigKey<Path> file :
          List.of(
              SecurityKeys.CA_BUNDLE,
              SecurityKeys.CERTIFICATE_CHAIN,
              SecurityKeys.PRIVATE_KEY,
              ZooKeeperKeys.CREDENTIAL_FILE)) {
        Path value = config.get(file);
        assertNotNull(value, name + " sets " + file.name());
        assertTrue(value.startsWith(tlsDir), name + ": " + file.name() + " on the mount: " + value);
      }
      for (String port : published) {
        String container = port.substring(port.lastIndexOf(':') + 1);
        assertNotEquals(
            Integer.toString(config.peerAddress().getPort()),
            container,
            name + " publishes its peer port");
        if (container.equals(Integer.toString(config.metricsPort()))) {
          assertTrue(port.startsWith("127.0.0.1:"), name + ": metrics on the host's loopback");
        }
      }

      // Issue 24 point 5: started once ZooKeeper is healthy, given more than the drain timeout
      // to stop gracefully, and held to a memory limit.
      assertEquals(
          "service_healthy",
          map(map(service.get("depends_on")).get(zookeeper)).get("condition"),
          name + " waits for a healthy ZooKeeper");
      assertNotNull(
          map(services.get(zookeeper)).get("healthcheck"), "ZooKeeper has a health check");
      Matcher grace =
          Pattern.compile("(\\d+)s").matcher(String.valueOf(service.get("stop_grace_period")));
      assertTrue(grace.matches(), name + ": stop_grace_period in seconds");
      assertTrue(
          Duration.ofSeconds(Long.parseLong(grace.group(1)))
                  .compareTo(config.get(NodeKeys.DRAIN_TIMEOUT))
              > 0,
          name + ": stop_grace_period above node.drainTimeout");
      assertNotNull(service.get("mem_limit"), name + " has a memory limit");
    }
    assertEquals(Set.of(1, 2, 3), nodeIds);
  }

  /**
   * Whether an endpoint bound to {@code host} answers on 127.0.0.1, where the health check dials.
   */
  private static boolean reachableOnLoopback(String host) throws Exception {
    InetAddress address = InetAddress.getByName(host);
    return address.isAnyLocalAddress() || address.getHostAddress().equals("127.0.0.1");
  }

  /** The variables the Dockerfile's ENV instructions set ({@code NAME=value}, quoted or not). */
  private static Map<String, String> dockerfileEnvironment(String dockerfile) {
    String joined = dockerfile.replace("\\\n", " ");
    Map<String, String> env = new HashMap<>();
    Matcher instruction = Pattern.compile("(?m)^ENV\\s+(.+)$").matcher(joined);
    while (instruction.find()) {
      Matcher pair =
          Pattern.compile("([A-Z_][A-Z0-9_]*)=(\"([^\"]*)\"|\\S+)").matcher(instruction.group(1));
      while (pair.find()) {
        env.put(pair.group(1), pair.group(3) != null ? pair.group(3) : pair.group(2));
      }
    }
    return env;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object yaml) {
    assertTrue(yaml instanceof Map, "a mapping: " + yaml);
    return (Map<String, Object>) yaml;
  }

  private static List<String> strings(Object yaml) {
    assertTrue(yaml instanceof List, "a list: " + yaml);
    return ((List<?>) yaml).stream().map(String::valueOf).toList();
  }
}
