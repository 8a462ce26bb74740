package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static io.frsm.transport.WireTesting.frame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Property test of the inbound edge, both protocols: valid frames mutated at random (seeded; replay
 * with -Dfrsm.frames.seed=N), fed in random splits through a port's {@link FrameDecoder} with its
 * {@link InboundLimits}. Whatever the bytes, the decoder emits only decoded records or closes the
 * connection — no exception escapes to the pipeline — and once the channel is gone, nothing of the
 * port's frame budget stays reserved. jqwik is downloadable here, but this needs no new test
 * engine.
 */
class FrameMutationTest {
  private static final long SEED = Long.getLong("frsm.frames.seed", 0x24F7L);
  private static final int CASES = 3_000;
  private static final int MAX_FRAME = 4096;

  private final TransportConfig config =
      TransportConfig.builder(CLUSTER)
          .maxFrameBytes(MAX_FRAME)
          .partialFrameBudgetBytes(MAX_FRAME * 4)
          .partialFrameTimeout(Duration.ofMillis(50))
          .build();

  @Test
  void peerFrames_mutated_decodeOrClose_andReleaseTheBudget() {
    PeerCodec framing = new PeerCodec(CLUSTER);
    byte[] valid = HexFormat.of().parseHex(FrameCodecTest.PREPARE_FRAME_HEX);
    run(valid, limits -> new FrameDecoder(MAX_FRAME, framing, () -> {}, limits));
  }

  @Test
  void clientFrames_mutated_decodeOrClose_andReleaseTheBudget() {
    ClientCodec server = new ClientCodec(CLUSTER, ClientCodec.Side.SERVER);
    ClientCodec client = new ClientCodec(CLUSTER, ClientCodec.Side.CLIENT);
    byte[] valid = frame(client.encodeRequest(7, new RandomWire(SEED).request()));
    run(valid, limits -> new FrameDecoder(MAX_FRAME, server, () -> {}, limits));
  }

  private void run(byte[] valid, java.util.function.Function<InboundLimits, FrameDecoder> decoder) {
    SplittableRandom random = new SplittableRandom(SEED);
    InboundLimits limits = new InboundLimits("test port", config);
    for (int i = 0; i < CASES; i++) {
      byte[] bytes = mutate(valid, random);
      EmbeddedChannel ch = new EmbeddedChannel(decoder.apply(limits));
      try {
        int at = 0;
        while (at < bytes.length && ch.isActive()) {
          int n = 1 + random.nextInt(bytes.length - at);
          ch.writeInbound(Unpooled.wrappedBuffer(Arrays.copyOfRange(bytes, at, at + n)));
          at += n;
        }
        ch.checkException(); // rethrows anything a handler let escape
        Object out;
        while ((out = ch.readInbound()) != null) {
          assertTrue(
              out instanceof SenderFrame<?> || out instanceof io.frsm.client.transport.ClientFrame,
              "decoded to " + out);
        }
        if (ch.isActive() && random.nextBoolean()) {
          ch.advanceTimeBy(100, TimeUnit.MILLISECONDS); // past the partial-frame timeout
          ch.runScheduledPendingTasks();
        }
      } catch (RuntimeException | AssertionError e) {
        throw new AssertionError(
            "seed " + SEED + ", case " + i + ": " + HexFormat.of().formatHex(bytes), e);
      } finally {
        ch.finishAndReleaseAll();
      }
      assertTrue(
          limits.reservedBytes() == 0,
          "case " + i + " left " + limits.reservedBytes() + " bytes of the budget reserved");
    }
  }

  private static final byte[] EDGES = {0, 1, 0x7f, (byte) 0x80, -1, 0x0a, 0x12, 0x08};

  /** Bytes flipped, set to edge values, inserted, dropped; the frame cut short or extended. */
  private static byte[] mutate(byte[] valid, SplittableRandom random) {
    byte[] b = valid.clone();
    int edits = 1 + random.nextInt(4);
    for (int e = 0; e < edits; e++) {
      int at = random.nextInt(Math.max(1, b.length));
      switch (random.nextInt(5)) {
        case 0 -> {
          if (b.length > 0) {
            b[at] = (byte) random.nextInt(256);
          }
        }
        case 1 -> {
          if (b.length > 0) {
            b[at] = EDGES[random.nextInt(EDGES.length)];
          }
        }
        case 2 -> b = Arrays.copyOf(b, random.nextInt(b.length + 1));
        case 3 -> {
          byte[] longer = Arrays.copyOf(b, b.length + 1 + random.nextInt(64));
          for (int k = b.length; k < longer.length; k++) {
            longer[k] = (byte) random.nextInt(256);
          }
          b = longer;
        }
        default -> {
          // a length prefix of the right size, the wrong size, or an extreme one
          if (b.length >= 4) {
            int len =
                List.of(b.length - 4, b.length, 0, MAX_FRAME, MAX_FRAME + 1, -1)
                    .get(random.nextInt(6));
            b[0] = (byte) (len >>> 24);
            b[1] = (byte) (len >>> 16);
            b[2] = (byte) (len >>> 8);
            b[3] = (byte) len;
          }
        }
      }
    }
    return b;
  }
}
