package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.FrameDecoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportConfig;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Coverage-guided fuzzing (Jazzer) of a port's inbound edge, both protocols: whatever bytes arrive,
 * in whatever splits, the {@link FrameDecoder} with its codec emits only decoded records or closes
 * the connection — no exception reaches the pipeline — and nothing of the port's frame budget stays
 * reserved once the connection is gone. {@link FrameMutationTest} mutates valid frames with a
 * seeded random; this lets the fuzzer find its own way into the protobuf bodies.
 *
 * <p>In every build each method first runs once per committed input (regression mode: the files
 * under {@code src/test/resources/io/frsm/transport/FrameDecoderFuzzTestInputs/<method>/}, and an
 * empty input), then fuzzes for the annotation's duration in a JVM of its own (the module's {@code
 * fuzz-short} profile); {@code scripts/fuzz.sh} fuzzes for longer (README.md "Fuzzing"). An input
 * that fails is written to that directory and stays there as a regression input.
 */
class FrameDecoderFuzzTest {
  private static final int MAX_FRAME = 4096;

  private static final TransportConfig CONFIG =
      TransportConfig.builder(CLUSTER)
          .maxFrameBytes(MAX_FRAME)
          .partialFrameBudgetBytes(MAX_FRAME * 4)
          .partialFrameTimeout(Duration.ofMillis(50))
          .build();

  /**
   * One port's limits for every input, as a port has: its budget must be whole again after each
   * connection, and its refusal log stays throttled across millions of connections.
   */
  private static final InboundLimits LIMITS = new InboundLimits("fuzzed port", CONFIG);

  @FuzzTest(maxDuration = "10s")
  void peerPort(FuzzedDataProvider data) {
    PeerCodec framing = new PeerCodec(CLUSTER);
    feed(data, limits -> new FrameDecoder(MAX_FRAME, framing, () -> {}, limits));
  }

  @FuzzTest(maxDuration = "10s")
  void clientPort(FuzzedDataProvider data) {
    ClientCodec server = new ClientCodec(CLUSTER, ClientCodec.Side.SERVER);
    feed(data, limits -> new FrameDecoder(MAX_FRAME, server, () -> {}, limits));
  }

  /**
   * The first bytes choose the splits and whether the partial-frame timer fires; the rest is the
   * stream. Split points come from the input so the fuzzer can replay and shrink a finding.
   */
  private static void feed(FuzzedDataProvider data, Function<InboundLimits, FrameDecoder> decoder) {
    InboundLimits limits = LIMITS;
    boolean fireTimer = data.consumeBoolean();
    int splits = data.consumeInt(0, 8);
    int[] sizes = new int[splits];
    for (int i = 0; i < splits; i++) {
      sizes[i] = data.consumeInt(1, 256);
    }
    byte[] stream = data.consumeRemainingAsBytes();
    EmbeddedChannel ch = new EmbeddedChannel(decoder.apply(limits));
    try {
      int at = 0;
      for (int i = 0; at < stream.length && ch.isActive(); i++) {
        int n = i < splits ? Math.min(sizes[i], stream.length - at) : stream.length - at;
        ch.writeInbound(Unpooled.wrappedBuffer(stream, at, n));
        at += n;
      }
      ch.checkException(); // rethrows anything a handler let escape
      Object out;
      while ((out = ch.readInbound()) != null) {
        assertTrue(
            out instanceof SenderFrame<?> || out instanceof ClientFrame, "decoded to " + out);
      }
      if (fireTimer && ch.isActive()) {
        ch.advanceTimeBy(100, TimeUnit.MILLISECONDS); // past the partial-frame timeout
        ch.runScheduledPendingTasks();
        ch.checkException();
      }
    } finally {
      ch.finishAndReleaseAll();
    }
    assertEquals(0, limits.reservedBytes(), "budget left reserved after the connection ended");
  }
}
