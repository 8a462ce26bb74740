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
 * frsm-consensus's transports in domain messages, and only their frame codec holds bytes ({@code
 * ByteBufConfinementTest} there). No class of this module is allowed.
 */
class ByteBufConfinementTest {

  @Test
  void noServerClass_referencesNettyBuffers() {
    Path root = ByteBufConfinement.classesRootOf(FrsmNode.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 50, "found this module's classes under " + root);
    assertEquals(List.of(), ByteBufConfinement.referencingNettyBuffers(root));
  }
}
