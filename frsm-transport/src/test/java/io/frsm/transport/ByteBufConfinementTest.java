package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ByteBufs stay in the frame codec (STYLE.md §4): {@link FrameDecoder} turns bytes into an envelope
 * and releases them, {@link FrameEncoder} turns an envelope into bytes; every other class of this
 * module — the transports, the writer, the codecs over protobuf, the consensus core — handles only
 * envelopes and domain messages, so no buffer can leak past the edge or reach the core. The TLS
 * record codec below them ({@code tls.SslHandlers}) is the one other edge class. The twins in
 * frsm-server and frsm-bench allow no class at all.
 */
class ByteBufConfinementTest {
  private static final List<Class<?>> FRAME_CODEC = List.of(FrameDecoder.class, FrameEncoder.class);

  /**
   * The TLS record codec's factory: it hands the channel's allocator to the SslHandler, which sits
   * below the frame codec and passes it the same bytes a plaintext socket would.
   */
  private static final String TLS_RECORD_CODEC = "io.frsm.transport.tls.SslHandlers";

  @Test
  void onlyTheFrameCodec_referencesNettyBuffers() {
    Path root = ByteBufConfinement.classesRootOf(FrameDecoder.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 100, "found this module's classes under " + root);
    List<String> referencing = ByteBufConfinement.referencingNettyBuffers(root);
    // The codec itself must be seen, or the scan proves nothing.
    for (Class<?> codec : FRAME_CODEC) {
      assertTrue(
          referencing.contains(codec.getName()), "the scan sees " + codec + ": " + referencing);
    }
    List<String> outside =
        referencing.stream()
            .filter(
                name ->
                    !name.equals(TLS_RECORD_CODEC)
                        && FRAME_CODEC.stream()
                            .noneMatch(c -> ByteBufConfinement.isOrNestedIn(name, c)))
            .toList();
    assertEquals(List.of(), outside, "classes outside the frame codec that use io.netty.buffer");
  }
}
