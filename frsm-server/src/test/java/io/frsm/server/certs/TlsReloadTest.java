package io.frsm.server.certs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.NotExecutedException;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.transport.ClientProtocolServer;
import io.frsm.transport.TopologyFeed;
import io.netty.handler.ssl.SslProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node's TLS files are read again when they change: connections made afterwards use the new
 * certificate and CA bundle, connections open already keep theirs, and files that cannot be used
 * leave the previous ones in place (counted).
 */
class TlsReloadTest {
  private static final String CLUSTER = "reload";
  private static final Duration VALIDITY = Duration.ofDays(1);
  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final OperationRequest GET =
      new OperationRequest(new ClientOperation.Get(KeyBytes.of(new byte[] {1})), 0);

  private final TransportConfig config = TransportConfig.builder(CLUSTER).build();
  private final TransportEventLoops loops = TransportEventLoops.create(1, true);
  private ClientProtocolServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    loops.close();
  }

  @Test
  void changedFiles_serveNewConnections_openOnesKeepTheirs_andBadFilesAreRefused(@TempDir Path dir)
      throws Exception {
    CertificateAuthority first = CertificateAuthority.create(CLUSTER, VALIDITY);
    CertificateAuthority second = CertificateAuthority.create(CLUSTER, VALIDITY);
    TlsFiles clientOfFirst = client(first, dir.resolve("first"));
    TlsFiles clientOfSecond = client(second, dir.resolve("second"));
    // The node's files, where an operator would replace them.
    Path live = dir.resolve("live");
    TlsFiles node = first.issueNode(live, CLUSTER, 1, VALIDITY);
    TlsContexts contexts = TlsContexts.load(node, SslProvider.JDK, Duration.ZERO);
    server =
        ClientProtocolServer.start(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            request ->
                CompletableFuture.completedFuture(
                    new OperationResponse.Completed(new ClientOutcome.NotExecuted("served"))),
            TopologyFeed.NONE,
            config,
            loops,
            new MutualTls(contexts, CLUSTER, TIMEOUT));

    ClientProtocolClient old = connect(clientOfFirst);
    assertServed(old);
    ClientProtocolClient refused = connect(clientOfSecond);
    assertRefused(refused, "the second CA is not trusted yet");
    refused.close(); // it would redial with back-off, and might see the files half-replaced

    // Rotate: a certificate of the second CA, and a bundle trusting both.
    TlsFiles rotated = second.issueNode(dir.resolve("staged"), CLUSTER, 1, VALIDITY);
    Files.writeString(
        node.caBundle(),
        Files.readString(first.issueNode(dir.resolve("ca1"), CLUSTER, 1, VALIDITY).caBundle())
            + Files.readString(rotated.caBundle()));
    replace(rotated.privateKey(), node.privateKey());
    replace(rotated.certificateChain(), node.certificateChain());

    assertServed(connect(clientOfSecond)); // a new connection: the new files
    assertServed(old); // the open connection keeps its session
    assertEquals(1, contexts.reloads());

    // A key that does not parse: the previous files stay in use.
    Files.writeString(node.privateKey(), "-----BEGIN PRIVATE KEY-----\nbroken\n");
    assertServed(connect(clientOfSecond));
    assertEquals(1, contexts.reloadFailures());
    assertEquals(1, contexts.reloads());
  }

  @Test
  void aCertificateNamingAnotherNode_isNotTakenOnReload(@TempDir Path dir) throws Exception {
    CertificateAuthority ca = CertificateAuthority.create(CLUSTER, VALIDITY);
    TlsFiles node = ca.issueNode(dir.resolve("live"), CLUSTER, 1, VALIDITY);
    TlsContexts contexts = TlsContexts.load(node, SslProvider.JDK, Duration.ZERO);
    TlsFiles other = ca.issueNode(dir.resolve("other"), CLUSTER, 2, VALIDITY);
    replace(other.privateKey(), node.privateKey());
    replace(other.certificateChain(), node.certificateChain());
    contexts.server(); // a new connection looks
    assertEquals(1, contexts.reloadFailures());
    assertEquals(new CertificateIdentity.Node(CLUSTER, 1), contexts.self());
  }

  private static TlsFiles client(CertificateAuthority ca, Path dir) throws Exception {
    return ca.issue(
        dir,
        "client-app",
        new CertificateIdentity.Client(CLUSTER, "app", EnumSet.of(Role.READ)),
        VALIDITY);
  }

  private ClientProtocolClient connect(TlsFiles files) {
    MutualTls tls =
        new MutualTls(TlsContexts.load(files, SslProvider.JDK, Duration.ZERO), CLUSTER, TIMEOUT);
    return ClientProtocolClient.connect(server.localAddress(), config, loops, tls);
  }

  private static void assertServed(ClientProtocolClient client) throws Exception {
    OperationResponse response = client.call(GET, TIMEOUT).get(30, TimeUnit.SECONDS);
    ClientOutcome.NotExecuted served =
        assertInstanceOf(
            ClientOutcome.NotExecuted.class,
            assertInstanceOf(OperationResponse.Completed.class, response).outcome());
    assertEquals("served", served.reason());
  }

  private static void assertRefused(ClientProtocolClient client, String why) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> client.call(GET, TIMEOUT).get(30, TimeUnit.SECONDS),
            why);
    assertInstanceOf(NotExecutedException.class, e.getCause(), why);
    assertTrue(e.getCause().getMessage().contains("TLS"), e.getCause().getMessage());
  }

  /** Replaces {@code target} in one step, as an operator's {@code mv} would. */
  private static void replace(Path source, Path target) throws Exception {
    Files.copy(source, target.resolveSibling(target.getFileName() + ".new"));
    Files.move(
        target.resolveSibling(target.getFileName() + ".new"),
        target,
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }
}
