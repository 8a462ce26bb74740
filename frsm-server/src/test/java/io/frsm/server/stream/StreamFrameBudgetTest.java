package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.transport.ClientProtocolServer;
import io.frsm.transport.NettyPeerTransport;
import io.frsm.transport.stream.StreamWire;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stream connections (range copies, hand-off shipments) share the node-wide budget for frames not
 * yet complete with the peer and client ports (issue 24 point 4): a half-sent frame on a stream
 * connection the peer port accepted, or on one this node dialed, reserves its declared length from
 * the same budget as a half-sent client frame, and either kind is refused (connection closed,
 * counted) when the other filled it; the budget is whole again once the connections close.
 */
class StreamFrameBudgetTest {
  private static final Duration DEADLINE = Duration.ofSeconds(30);
  private static final InetSocketAddress LOOPBACK =
      new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  /** A stream frame at its limit: the size every half-sent frame here declares. */
  private static final int FRAME = StreamWire.MAX_FRAME_BYTES;

  /** Each port (and the dialed streams) could hold four frames; the node five, all together. */
  private static final TransportConfig CONFIG =
      TransportConfig.builder(StreamTestNode.CLUSTER)
          .maxFrameBytes(FRAME)
          .partialFrameBudgetBytes(4 * FRAME)
          .nodeFrameBudgetBytes(5 * FRAME)
          .build();

  @TempDir Path tmp;

  private final List<Socket> sockets = new ArrayList<>();
  private TransportEventLoops loops;
  private LsmEngine engine;
  private RangeStreams streams;
  private NettyPeerTransport peers;
  private ClientProtocolServer clients;
  private InboundLimits dialed;
  private ServerSocket fakeSource;

  @BeforeEach
  void start() throws IOException {
    loops = TransportEventLoops.create(1, false);
    Path dir = tmp.resolve("node1");
    engine =
        LsmEngine.open(
            LsmConfig.builder(dir).commitLogDirectories(List.of(dir.resolve("commitlog"))).build(),
            NioFileSystem.INSTANCE,
            new SimpleMeterRegistry());
    dialed = new InboundLimits("stream connections dialed", CONFIG, loops.nodeFrameBudget(CONFIG));
    fakeSource = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    streams =
        new RangeStreams(
            1,
            StreamTestNode.CLUSTER,
            ChannelSecurity.plaintext(),
            loops,
            id -> (InetSocketAddress) fakeSource.getLocalSocketAddress(),
            dir,
            RangeStreams.production(engine),
            StreamSettings.defaults(),
            new SimpleMeterRegistry(),
            dialed);
    peers =
        NettyPeerTransport.start(
            1,
            LOOPBACK,
            id -> null,
            (from, m) -> {},
            CONFIG,
            loops,
            ChannelSecurity.plaintext(),
            streams.acceptor());
    clients =
        ClientProtocolServer.start(
            LOOPBACK,
            request ->
                CompletableFuture.completedFuture(
                    new OperationResponse.Completed(
                        new ClientOutcome.ReadResult(Optional.empty()))),
            CONFIG,
            loops);
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    fakeSource.close();
    if (clients != null) {
      clients.close();
    }
    if (peers != null) {
      peers.close();
    }
    if (streams != null) {
      streams.close();
    }
    loops.close();
    engine.close();
  }

  @Test
  void aClientFloodFillingTheNodesBudget_refusesAStreamFrame() throws Exception {
    InboundLimits client = clients.limits();
    InboundLimits peer = peers.limits();
    assertSame(client.nodeBudget(), peer.nodeBudget());
    assertSame(client.nodeBudget(), dialed.nodeBudget(), "dialed streams share the node's budget");

    List<Socket> flood = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      flood.add(beginFrame(clients.localAddress(), false));
      long held = (long) i * FRAME;
      RangeStreamIT.await(() -> client.reservedBytes() == held, "client frame held");
    }
    Socket fits = beginFrame(peers.localAddress(), true);
    RangeStreamIT.await(() -> peer.reservedBytes() == FRAME, "the fifth frame, a stream's, held");
    Socket beyond = beginFrame(peers.localAddress(), true);
    awaitClosedByServer(beyond);
    assertEquals(1, peer.refusedNodeFrames(), "the stream frame is refused by the node's budget");
    assertEquals(0, peer.refusedFrames(), "not by the peer port's own, which had room");
    assertEquals(5L * FRAME, client.nodeBudget().reservedBytes());
    assertTrue(fits.isConnected() && !fits.isClosed());

    // a connection this node dials for a copy: the source's half-sent frame finds no room either
    CompletableFuture<Void> copy = streams.copy(2, 0, 1000);
    try (Socket source = acceptDialedStream()) {
      source.getOutputStream().write(halfFrame());
      source.getOutputStream().flush();
      awaitClosedByServer(source);
    }
    RangeStreamIT.await(() -> dialed.refusedNodeFrames() >= 1, "the dialed stream's frame refused");
    copy.cancel(true);

    for (Socket s : sockets) {
      s.close();
    }
    RangeStreamIT.await(
        () -> client.nodeBudget().reservedBytes() == 0,
        "the budget is whole again once the connections closed");
    beginFrame(peers.localAddress(), true);
    RangeStreamIT.await(() -> peer.reservedBytes() == FRAME, "a stream frame fits again");
    assertEquals(0, client.refusedNodeFrames() + client.refusedFrames());
  }

  @Test
  void halfSentStreamFrames_countAgainstClientFrames() throws Exception {
    InboundLimits client = clients.limits();
    InboundLimits peer = peers.limits();
    for (int i = 1; i <= 4; i++) {
      beginFrame(peers.localAddress(), true);
      long held = (long) i * FRAME;
      RangeStreamIT.await(() -> peer.reservedBytes() == held, "stream frame held");
    }
    beginFrame(clients.localAddress(), false);
    RangeStreamIT.await(() -> client.reservedBytes() == FRAME, "the fifth frame, a client's, held");
    Socket beyond = beginFrame(clients.localAddress(), false);
    awaitClosedByServer(beyond);
    assertEquals(1, client.refusedNodeFrames(), "refused: the streams hold the node's budget");
    assertEquals(0, client.refusedFrames());
    assertEquals(0, peer.refusedNodeFrames() + peer.refusedFrames());
  }

  /**
   * A connection that begins a frame of {@link #FRAME} bytes and sends 1 KiB of it; on the peer
   * port after the stream preamble if {@code stream}.
   */
  private Socket beginFrame(InetSocketAddress port, boolean stream) throws IOException {
    Socket s = new Socket();
    s.connect(port, (int) DEADLINE.toMillis());
    sockets.add(s);
    OutputStream out = s.getOutputStream();
    if (stream) {
      out.write(StreamWire.preamble());
    }
    out.write(halfFrame());
    out.flush();
    return s;
  }

  private static byte[] halfFrame() {
    return ByteBuffer.allocate(4 + 1024).putInt(FRAME - 4).array();
  }

  /** The node's dial for a copy, its preamble read off. */
  private Socket acceptDialedStream() throws IOException {
    fakeSource.setSoTimeout((int) DEADLINE.toMillis());
    Socket s = fakeSource.accept();
    sockets.add(s);
    s.setSoTimeout((int) DEADLINE.toMillis());
    byte[] preamble = s.getInputStream().readNBytes(StreamWire.PREAMBLE_BYTES);
    assertEquals(StreamWire.PREAMBLE_BYTES, preamble.length, "the dialer sent its preamble");
    return s;
  }

  /** The other end closes {@code s}: a read ends the stream (or the connection is reset). */
  private static void awaitClosedByServer(Socket s) throws IOException {
    s.setSoTimeout((int) DEADLINE.toMillis());
    InputStream in = s.getInputStream();
    try {
      while (in.read() != -1) {
        // a dialing receiver sends its request first; skip whatever it sent
      }
    } catch (SocketException reset) {
      // closed with unread input on the other side: a reset is a close too
    }
  }
}
