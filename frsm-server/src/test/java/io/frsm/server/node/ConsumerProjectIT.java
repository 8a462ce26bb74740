package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service that depends on {@code io.frsm:frsm-client} alone (issue 25, "Tests"): a small program
 * is compiled against frsm-client's resolved runtime class path only (written by frsm-client's
 * build, from the reactor: no install), that class path is checked to hold no ZooKeeper, Curator,
 * LSM, consensus core, node, SLF4J binding, OpenSSL (netty-tcnative) or BouncyCastle, and the
 * program then runs in a JVM of its own with that class path, the nodes' client addresses and a
 * client certificate only, doing get, create and CAS against three real nodes over mutual TLS (the
 * production default) through the JDK's TLS provider.
 */
class ConsumerProjectIT {
  private static final Path CLIENT_TARGET = Path.of("..", "frsm-client", "target");

  /** Artifacts a service must not get from frsm-client (file names on the class path). */
  private static final List<String> FORBIDDEN =
      List.of(
          "zookeeper",
          "curator",
          "frsm-lsm",
          "frsm-consensus",
          "frsm-cell",
          "frsm-store",
          "frsm-server",
          "frsm-transport",
          "slf4j-simple",
          "slf4j-jdk14",
          "slf4j-nop",
          "slf4j-reload4j",
          "logback",
          "log4j",
          "caffeine",
          "guava",
          "snakeyaml",
          "micrometer",
          "tcnative",
          "bcprov",
          "bcpkix");

  private static final String PROGRAM =
      """
      import io.frsm.api.CasMismatchException;
      import io.frsm.api.FrsmClient;
      import io.frsm.api.Version;
      import java.nio.charset.StandardCharsets;
      import java.nio.file.Path;

      public final class Consumer {
        public static void main(String[] args) throws Exception {
          for (String absent : new String[] {
              "org.apache.zookeeper.ZooKeeper", "org.apache.curator.framework.CuratorFramework",
              "io.frsm.server.node.FrsmNode", "io.frsm.lsm.LsmEngine", "io.frsm.cell.Token",
              "org.slf4j.impl.StaticLoggerBinder", "ch.qos.logback.classic.Logger",
              "io.netty.internal.tcnative.SSL",
              "org.bouncycastle.jce.provider.BouncyCastleProvider"}) {
            try {
              Class.forName(absent);
              throw new AssertionError(absent + " is on the class path");
            } catch (ClassNotFoundException expected) {
              // as it must be
            }
          }
          byte[] key = "consumer".getBytes(StandardCharsets.UTF_8);
          try (FrsmClient client =
              FrsmClient.builder()
                  .seeds(args[0])
                  .clusterId(args[1])
                  .tls(Path.of(args[2]), Path.of(args[3]), Path.of(args[4]))
                  .build()) {
            if (client.get(key).isPresent()) {
              throw new AssertionError("fresh key present");
            }
            Version v = client.create(key, "1".getBytes(StandardCharsets.UTF_8));
            Version w = client.cas(key, v, "2".getBytes(StandardCharsets.UTF_8));
            try {
              client.cas(key, v, "stale".getBytes(StandardCharsets.UTF_8));
              throw new AssertionError("a stale CAS succeeded");
            } catch (CasMismatchException expected) {
              // carries the current version
            }
            String read =
                new String(client.get(key).orElseThrow().value(), StandardCharsets.UTF_8);
            System.out.println("consumer ok: " + read + " at " + w);
          }
        }
      }
      """;

  @Test
  void aProgramOnFrsmClientsClassPathAlone_runsAgainstTheNodes(@TempDir Path dir) throws Exception {
    List<String> classPath = clientClassPath();
    for (String entry : classPath) {
      String name = Path.of(entry).getFileName().toString();
      for (String forbidden : FORBIDDEN) {
        assertTrue(!name.contains(forbidden), "frsm-client brings " + entry);
      }
    }
    assertTrue(classPath.stream().anyMatch(e -> e.contains("frsm-api")), classPath.toString());
    assertTrue(classPath.stream().anyMatch(e -> e.contains("netty")), classPath.toString());

    Path source = dir.resolve("src").resolve("Consumer.java");
    Files.createDirectories(source.getParent());
    Files.writeString(source, PROGRAM);
    Path classes = Files.createDirectories(dir.resolve("classes"));
    String cp = String.join(File.pathSeparator, classPath);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int compiled =
        javac.run(
            null,
            null,
            null,
            "--release",
            "17",
            "-classpath",
            cp,
            "-d",
            classes.toString(),
            source.toString());
    assertEquals(0, compiled, "the consumer compiles against frsm-client's class path alone");

    try (TestCluster cluster = new TestCluster(dir.resolve("cluster"))) {
      TlsFiles certificate = cluster.tls().client("consumer", Role.READ, Role.WRITE);
      Path log = dir.resolve("consumer.log");
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  cp + File.pathSeparator + classes,
                  "Consumer",
                  cluster.seeds(),
                  TestCluster.CLUSTER_ID,
                  certificate.caBundle().toString(),
                  certificate.certificateChain().toString(),
                  certificate.privateKey().toString())
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      try {
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
          fail("the consumer did not finish in 120 s: " + Files.readString(log));
        }
      } finally {
        p.destroyForcibly();
      }
      String out = Files.readString(log, StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), out);
      assertTrue(out.contains("consumer ok: 2 at "), out);
    }
  }

  /**
   * frsm-client's jar (or classes) and its runtime dependencies, as frsm-client's build resolved
   * them ({@code maven-dependency-plugin:build-classpath}).
   */
  private static List<String> clientClassPath() throws IOException {
    Path resolved = CLIENT_TARGET.resolve("runtime-classpath.txt");
    if (!Files.exists(resolved)) {
      fail(
          resolved.toAbsolutePath()
              + " is missing: build with -am so that frsm-client builds first");
    }
    List<String> out = new ArrayList<>();
    try (var jars = Files.list(CLIENT_TARGET)) {
      jars.filter(
              p -> {
                String n = p.getFileName().toString();
                return n.startsWith("frsm-client-")
                    && n.endsWith(".jar")
                    && !n.contains("sources")
                    && !n.contains("javadoc")
                    && !n.contains("tests");
              })
          .findFirst()
          .ifPresentOrElse(
              jar -> out.add(jar.toAbsolutePath().toString()),
              () -> out.add(CLIENT_TARGET.resolve("classes").toAbsolutePath().toString()));
    }
    for (String entry : Files.readString(resolved).strip().split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        out.add(entry);
      }
    }
    return out;
  }
}
