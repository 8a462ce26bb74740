package io.frsm.server.node;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.FrsmClient;
import io.frsm.server.stream.RangeCopier;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's {@link FrsmNode#rangeCopier()} copies a range from another node of a running cluster:
 * the stream finds the source through the cluster's membership, shares its peer port and mutual TLS
 * with the consensus messages, and the cluster keeps serving during and after the copy.
 */
class RangeCopyIT {
  @Test
  void rangeCopier_copiesFromAPeerOfTheCluster_overItsPeerPort(@TempDir Path dir) throws Exception {
    try (TestCluster cluster = new TestCluster(dir)) {
      try (FrsmClient client = cluster.node(1).client()) {
        for (int i = 0; i < 500; i++) {
          client.create(("copy/" + i).getBytes(UTF_8), ("v" + i).getBytes(UTF_8));
        }
        RangeCopier copier = cluster.node(2).rangeCopier();
        copier.copy(1, 0, 0).get(120, TimeUnit.SECONDS);
        assertEquals(
            1.0,
            cluster.node(2).meterRegistry().get("frsm.stream.copies.completed").counter().count());
        assertTrue(
            cluster.node(1).meterRegistry().get("frsm.stream.bytes.sent").counter().count() > 0);
        byte[] key = "copy/after".getBytes(UTF_8);
        client.create(key, "still serving".getBytes(UTF_8));
        assertArrayEquals("still serving".getBytes(UTF_8), client.get(key).orElseThrow().value());
      }
    }
  }
}
