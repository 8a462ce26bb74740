package io.frsm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.bench.crsm.CrsmWireCodec;
import io.frsm.transport.ByteBufConfinement;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The cRSM baseline rides frsm-consensus's shared peer framing ({@code FramedPeerTransport} with
 * {@link CrsmWireCodec}, which maps protobuf envelopes, never bytes), so no class of this module
 * may touch a Netty buffer (STYLE.md §4); only frsm-consensus's frame codec does.
 */
class ByteBufConfinementTest {

  @Test
  void noBenchClass_referencesNettyBuffers() {
    Path root = ByteBufConfinement.classesRootOf(CrsmWireCodec.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 20, "found this module's classes under " + root);
    assertEquals(List.of(), ByteBufConfinement.referencingNettyBuffers(root));
  }
}
