package io.frsm.server.stream;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsProviders;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.transport.NettyPeerTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * A node reduced to what streaming needs, for tests: an engine in its own directory, a peer
 * transport on an ephemeral loopback port (mutual TLS with certificates of the test's CA, or
 * plaintext), and its {@link RangeStreams}. Every node of a test shares one address book.
 */
final class StreamTestNode implements AutoCloseable {
  static final String CLUSTER = "stream-test";

  final int id;
  final Path dataDirectory;
  final LsmEngine engine;
  final RangeStreams streams;
  final SimpleMeterRegistry meters;
  private final TransportEventLoops loops;
  private final NettyPeerTransport peers;

  private StreamTestNode(
      int id,
      Path dataDirectory,
      LsmEngine engine,
      RangeStreams streams,
      TransportEventLoops loops,
      NettyPeerTransport peers,
      SimpleMeterRegistry meters) {
    this.id = id;
    this.meters = meters;
    this.dataDirectory = dataDirectory;
    this.engine = engine;
    this.streams = streams;
    this.loops = loops;
    this.peers = peers;
  }

  /** The test's CA, address book and security. */
  static final class Cluster {
    final Map<Integer, InetSocketAddress> addresses = new ConcurrentHashMap<>();
    private final Path root;
    private final CertificateAuthority ca;

    /** {@code tls}: mutual TLS between the nodes; else plaintext. */
    Cluster(Path root, boolean tls) throws IOException {
      this.root = root;
      this.ca =
          tls
              ? CertificateAuthority.loadOrCreate(root.resolve("ca"), CLUSTER, Duration.ofDays(1))
              : null;
    }

    ChannelSecurity security(int nodeId) throws IOException {
      if (ca == null) {
        return ChannelSecurity.plaintext();
      }
      var files =
          ca.issue(
              root.resolve("ca"),
              "node-" + nodeId,
              new CertificateIdentity.Node(CLUSTER, nodeId),
              Duration.ofDays(1));
      return new MutualTls(
          TlsContexts.load(files, TlsProviders.preferred(), Duration.ofMinutes(10)),
          CLUSTER,
          Duration.ofSeconds(10));
    }

    /** A client certificate's security, with every role: not a node, so never a stream peer. */
    ChannelSecurity clientSecurity(String name) throws IOException {
      var files =
          ca.issue(
              root.resolve("ca"),
              "client-" + name,
              new CertificateIdentity.Client(
                  CLUSTER, name, java.util.EnumSet.allOf(io.frsm.client.transport.tls.Role.class)),
              Duration.ofDays(1));
      return new MutualTls(
          TlsContexts.load(files, TlsProviders.preferred(), Duration.ofMinutes(10)),
          CLUSTER,
          Duration.ofSeconds(10));
    }

    StreamTestNode start(int id, StreamSettings settings, UnaryOperator<RangeStreams.Parts> seams)
        throws IOException {
      Path dir = root.resolve("node" + id);
      LsmEngine engine =
          LsmEngine.open(
              LsmConfig.builder(dir)
                  .commitLogDirectories(List.of(dir.resolve("commitlog")))
                  .build(),
              NioFileSystem.INSTANCE,
              new SimpleMeterRegistry());
      TransportEventLoops loops = TransportEventLoops.create(2, false);
      ChannelSecurity security = security(id);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      TransportConfig transport = TransportConfig.builder(CLUSTER).build();
      RangeStreams streams =
          new RangeStreams(
              id,
              CLUSTER,
              security,
              loops,
              addresses::get,
              dir,
              seams.apply(RangeStreams.production(engine)),
              settings,
              meters,
              // as a node: dialed streams held to the node's frame budget, with its peer port
              new InboundLimits(
                  "stream connections dialed", transport, loops.nodeFrameBudget(transport)));
      NettyPeerTransport peers =
          NettyPeerTransport.start(
              id,
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              addresses::get,
              (from, m) -> {},
              transport,
              loops,
              security,
              streams.acceptor());
      addresses.put(id, peers.localAddress());
      return new StreamTestNode(id, dir, engine, streams, loops, peers, meters);
    }
  }

  /** The value of counter {@code name} of this node's streams. */
  double counter(String name) {
    return meters.get(name).counter().count();
  }

  /** Writes {@code count} chosen cells {@code key-<i>} with {@code valueBytes}-byte values. */
  void writeChosen(int count, int valueBytes) {
    List<CompletableFuture<Void>> acks = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      acks.add(engine.writeUnlogged(chosenCell(i, valueBytes)));
      if (acks.size() == 10_000) {
        CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
        acks.clear();
      }
    }
    CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
    engine.flush().join();
  }

  static Key key(int i) {
    return Key.of(String.format("key-%08d", i).getBytes(StandardCharsets.UTF_8));
  }

  static Cell chosenCell(int i, int valueBytes) {
    byte[] value = new byte[valueBytes];
    byte[] label = Integer.toString(i).getBytes(StandardCharsets.UTF_8);
    for (int b = 0; b < valueBytes; b++) {
      value[b] = b < label.length ? label[b] : (byte) (i * 31 + b);
    }
    return Cell.accepted(
        key(i), AcceptedValue.live(1, i, new Ballot(i + 1L, 1, 1), value, true), 1);
  }

  @Override
  public void close() {
    streams.close();
    peers.close();
    loops.close();
    engine.close();
  }

  /** As a crash: the stream and transport stop, the engine is abandoned unflushed. */
  void kill() {
    streams.close();
    peers.close();
    loops.close();
    engine.kill();
  }
}
