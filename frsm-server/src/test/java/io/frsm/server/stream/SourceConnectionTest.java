package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.MessageLite;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.transport.proto.OpenStream;
import io.frsm.transport.proto.ReadChunk;
import io.frsm.transport.proto.StreamEnvelope;
import io.frsm.transport.proto.StreamManifest;
import io.frsm.transport.stream.StreamWire;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The source's checks of what a receiver sends (docs/formats/streaming.md "Validated ranges"):
 * every refusal is a StreamError naming the problem and a closed connection; valid requests are
 * answered with the manifest and chunks carrying the CRC32C of their bytes.
 */
class SourceConnectionTest {
  private static final int FILE_BYTES = 300;

  @TempDir Path tmp;
  private ScheduledExecutorService executor;
  private StreamSource source;
  private final StreamMetrics metrics = new StreamMetrics(new SimpleMeterRegistry());
  private final byte[] content = new byte[FILE_BYTES];

  @BeforeEach
  void setUp() {
    for (int i = 0; i < FILE_BYTES; i++) {
      content[i] = (byte) (i * 7);
    }
    executor = Executors.newSingleThreadScheduledExecutor();
    SnapshotStore.RangeExporter exporter =
        (first, last, dir) -> {
          Path f = dir.resolve("export-1-000001.db");
          Files.write(f, content);
          return List.of(f);
        };
    source =
        new StreamSource(
            new StreamSource.SourceContext(
                1,
                "c1",
                ChannelSecurity.plaintext(),
                new SnapshotStore(tmp, exporter, 60_000, System::currentTimeMillis),
                new StreamSettings(
                    0,
                    1 << 20,
                    8,
                    3,
                    java.time.Duration.ofHours(1),
                    1,
                    0,
                    java.time.Duration.ofMinutes(1)),
                Throttle.unlimited(),
                ChunkFaults.none(),
                metrics,
                executor,
                null));
  }

  @AfterEach
  void tearDown() throws Exception {
    executor.shutdownNow();
    executor.awaitTermination(10, TimeUnit.SECONDS);
  }

  private EmbeddedChannel channel() {
    EmbeddedChannel ch = new EmbeddedChannel();
    source.accept(ch, null);
    return ch;
  }

  private static StreamEnvelope.Builder from2() {
    return StreamWire.envelope("c1", 2);
  }

  private static void send(EmbeddedChannel ch, MessageLite... envelopes) {
    ByteBuf out = Unpooled.buffer();
    for (MessageLite e : envelopes) {
      byte[] b = e.toByteArray();
      out.writeInt(b.length).writeBytes(b);
    }
    ch.writeInbound(out);
  }

  private static StreamEnvelope open() {
    return from2()
        .setOpen(OpenStream.newBuilder().setFromTokenExclusive(0).setToTokenInclusive(0))
        .build();
  }

  private static StreamEnvelope read(int file, long offset, int length) {
    return from2()
        .setReadChunk(ReadChunk.newBuilder().setFileIndex(file).setOffset(offset).setLength(length))
        .build();
  }

  /** The next envelope the source wrote, waiting for the executor's work. */
  private static StreamEnvelope next(EmbeddedChannel ch) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      ch.runPendingTasks();
      ByteBuf b = ch.readOutbound();
      if (b != null) {
        try {
          int length = b.readInt();
          byte[] body = new byte[length];
          b.readBytes(body);
          return StreamEnvelope.parseFrom(body);
        } finally {
          b.release();
        }
      }
      TimeUnit.MILLISECONDS.sleep(5);
    }
    throw new AssertionError("the source wrote nothing within 30 s");
  }

  private static void assertRefused(EmbeddedChannel ch, String reason) throws Exception {
    StreamEnvelope e = next(ch);
    while (e.hasManifest() || e.hasChunk()) {
      e = next(ch);
    }
    assertTrue(e.hasError(), e.toString());
    assertTrue(e.getError().getMessage().contains(reason), e.getError().getMessage());
    // The source writes the error and closes on its executor's thread (an embedded channel runs
    // both at once there): the error can be read here before the close has run.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (ch.isOpen() && System.nanoTime() < deadline) {
      ch.runPendingTasks();
      TimeUnit.MILLISECONDS.sleep(1);
    }
    assertFalse(ch.isOpen(), "closed after " + reason);
    ch.finishAndReleaseAll(); // runs the close's inactive event: the session is over
  }

  @Test
  void open_isAnsweredWithTheManifest_andChunksWithTheirChecksum() throws Exception {
    EmbeddedChannel ch = channel();
    send(ch, open());
    StreamManifest m = next(ch).getManifest();
    assertEquals(1, m.getFilesCount());
    assertEquals(FILE_BYTES, m.getFiles(0).getLength());
    assertEquals(Crc32c.of(content, 0, FILE_BYTES), m.getFiles(0).getCrc32C());
    send(ch, read(0, 250, 100));
    var chunk = next(ch).getChunk();
    assertEquals(250, chunk.getOffset());
    assertArrayEquals(
        java.util.Arrays.copyOfRange(content, 250, 300), chunk.getData().toByteArray());
    assertEquals(Crc32c.of(content, 250, 50), chunk.getCrc32C());
    assertTrue(ch.isOpen());
  }

  @Test
  void readBeforeOpen_isRefused() throws Exception {
    EmbeddedChannel ch = channel();
    send(ch, read(0, 0, 10));
    assertRefused(ch, "ReadChunk before OpenStream");
  }

  @Test
  void outOfRangeRequests_areRefused() throws Exception {
    Object[][] cases = {
      {read(1, 0, 10), "file index 1 is not in the snapshot"},
      {read(-1, 0, 10), "file index 4294967295 is not in the snapshot"},
      {read(0, 301, 10), "offset 301 outside export-1-000001.db (300 bytes)"},
      {read(0, -1, 10), "offset 18446744073709551615 outside"},
      {read(0, 0, 0), "chunk length 0 outside"},
      {read(0, 0, StreamWire.MAX_CHUNK_BYTES + 1), "chunk length 4194305 outside"},
    };
    for (Object[] c : cases) {
      EmbeddedChannel ch = channel();
      send(ch, open(), (StreamEnvelope) c[0]);
      assertRefused(ch, (String) c[1]);
      // The source gives its session back when the close reaches it, on its executor: the next
      // case opens only once it did (one session at most here), or it is refused as busy.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (metrics.sourceSessions.get() > 0 && System.nanoTime() < deadline) {
        TimeUnit.MILLISECONDS.sleep(1);
      }
      assertEquals(0, metrics.sourceSessions.get(), "the refused session given back");
    }
  }

  @Test
  void askingMoreThanTheOutstandingBound_isRefused() throws Exception {
    EmbeddedChannel ch = channel();
    StreamEnvelope[] flood = new StreamEnvelope[10];
    flood[0] = open();
    for (int i = 1; i < flood.length; i++) {
      flood[i] = read(0, 0, StreamWire.MAX_CHUNK_BYTES);
    }
    send(ch, flood);
    assertRefused(ch, "bytes asked and unanswered");
  }

  @Test
  void whatOnlyASourceSends_isRefusedFromAReceiver() throws Exception {
    EmbeddedChannel ch = channel();
    send(ch, from2().setManifest(StreamManifest.newBuilder().setSnapshotId("ab")).build());
    assertRefused(ch, "a receiver does not send MANIFEST");
  }

  @Test
  void secondSessionBeyondTheLimit_isToldBusy_andTheFirstGoesOn() throws Exception {
    EmbeddedChannel first = channel();
    send(first, open());
    assertNotNull(next(first).getManifest());
    EmbeddedChannel second = channel();
    send(second, open());
    assertRefused(second, "busy");
    assertTrue(first.isOpen());
  }

  @Test
  void forgedFrame_closesTheConnectionUnanswered() throws Exception {
    EmbeddedChannel ch = channel();
    ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 3, (byte) 0xFF, (byte) 0xFF, 1}));
    assertFalse(ch.isOpen());
    assertEquals(1, source.refusedFrames());
    EmbeddedChannel huge = channel();
    huge.writeInbound(Unpooled.wrappedBuffer(new byte[] {0x7F, 0, 0, 0}));
    assertFalse(huge.isOpen(), "a frame above the stream frame limit");
  }
}
