package io.frsm.server.examples;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.server.node.FrsmNode;
import io.frsm.server.zk.EmbeddedZooKeeper;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Embedding frsm: an in-process ZooKeeper and a three-node cluster in one JVM, a few operations
 * through a node's embedded client and through a thin client, then a clean shutdown.
 *
 * <p>Run: {@code ./mvnw -pl frsm-server -am -q install -DskipTests && java -cp "$(./mvnw -q -pl
 * frsm-server dependency:build-classpath -Dmdep.outputFile=/dev/stdout):frsm-server/target/classes"
 * io.frsm.server.examples.EmbeddedExample [directory]}
 */
public final class EmbeddedExample {
  private EmbeddedExample() {}

  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("frsm-example");
    List<FrsmNode> nodes = new ArrayList<>();
    try (EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(dir.resolve("zookeeper"))) {
      try {
        for (int id = 1; id <= 3; id++) {
          FrsmNode node =
              FrsmNode.builder()
                  .nodeId(id)
                  .clusterId("example")
                  .dataDirectory(dir.resolve("node-" + id))
                  .zookeeper(zookeeper.connectString())
                  .build();
          node.start(); // returns once registered; the cluster forms with the third node
          nodes.add(node);
        }
        for (FrsmNode node : nodes) {
          node.awaitReady(Duration.ofSeconds(30));
          System.out.printf(
              "node %d (boot %d): peers at %s, clients at %s%n",
              node.nodeId(), node.boot(), node.peerAddress(), node.clientAddress());
        }

        byte[] key = utf8("greeting");
        try (FrsmClient embedded = nodes.get(0).client()) {
          Version v1 = embedded.create(key, utf8("hello"));
          Version v2 = embedded.cas(key, v1, utf8("hello, world"));
          System.out.println("created at " + v1 + ", replaced at " + v2);
          try {
            embedded.cas(key, v1, utf8("stale"));
          } catch (CasMismatchException e) {
            System.out.println("stale CAS refused; the key is at " + e.current().orElseThrow());
          }
        }
        try (FrsmClient thin =
            FrsmClient.builder()
                .zookeeper(zookeeper.connectString())
                .clusterId("example")
                .build()) {
          Versioned read = thin.get(key).orElseThrow();
          System.out.println(
              "thin client reads \""
                  + new String(read.value(), StandardCharsets.UTF_8)
                  + "\" at "
                  + read.version());
          thin.delete(key, read.version());
          System.out.println("deleted; present now: " + thin.get(key).isPresent());
        }
      } finally {
        for (FrsmNode node : nodes) {
          node.close(); // drains, deregisters, stops the transports, flushes the engine
        }
      }
    }
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
