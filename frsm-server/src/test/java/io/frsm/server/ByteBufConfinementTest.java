package io.frsm.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.node.FrsmNode;
import io.frsm.transport.ByteBufConfinement;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The node never touches a Netty buffer (STYLE.md §4): it talks to peers and clients through
 * frsm-transport's protocols in domain messages, and only their frame codec holds bytes ({@code
 * ByteBufConfinementTest} there). One class of this module is allowed: the metrics endpoint's HTTP
 * edge, which wraps an answer's bytes into the response its codec writes ({@code AnswerResponses}).
 */
class ByteBufConfinementTest {

  @Test
  void noServerClass_referencesNettyBuffers() {
    Path root = ByteBufConfinement.classesRootOf(FrsmNode.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 50, "found this module's classes under " + root);
    assertEquals(
        List.of("io.frsm.server.metrics.AnswerResponses"),
        ByteBufConfinement.referencingNettyBuffers(root));
  }
}
