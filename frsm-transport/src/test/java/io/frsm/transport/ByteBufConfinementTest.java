package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ConnectionPreamble;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.FrameEncoder;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * ByteBufs stay in the frame codec (STYLE.md §4): {@link FrameDecoder} turns bytes into an envelope
 * and releases them, {@link FrameEncoder} turns an envelope into bytes, {@link ConnectionPreamble}
 * writes and recognises a connection's opening bytes; every other class of the wire — frsm-client's
 * connection, writer and client codec, and this module's transports and codecs over protobuf —
 * handles only envelopes and domain messages, so no buffer can leak past the edge or reach the
 * core. The frame codec lives in frsm-client (the client protocol needs it, and the client must not
 * depend on this module), so both modules' classes are scanned here. The TLS record codec below
 * them (frsm-client's {@code tls.SslHandlers}, for the same reason) is the one other edge class.
 * The twins in frsm-server and frsm-bench allow no class at all.
 */
class ByteBufConfinementTest {
  private static final List<Class<?>> FRAME_CODEC =
      List.of(FrameDecoder.class, FrameEncoder.class, ConnectionPreamble.class);

  /**
   * The TLS record codec's factory: it hands the channel's allocator to the SslHandler, which sits
   * below the frame codec and passes it the same bytes a plaintext socket would.
   */
  private static final String TLS_RECORD_CODEC = "io.frsm.client.transport.tls.SslHandlers";

  @Test
  void onlyTheFrameCodec_referencesNettyBuffers_inFrsmClient() {
    Path root = ByteBufConfinement.classesRootOf(FrameDecoder.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 20, "found frsm-client's classes under " + root);
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

  @Test
  void noClassOfThisModule_referencesNettyBuffers() {
    Path root = ByteBufConfinement.classesRootOf(ClientProtocolServer.class);
    assertTrue(
        ByteBufConfinement.classes(root).size() > 50, "found this module's classes under " + root);
    assertEquals(
        List.of(),
        ByteBufConfinement.referencingNettyBuffers(root),
        "classes of frsm-transport that use io.netty.buffer");
  }
}
