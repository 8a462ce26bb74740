package io.frsm.server.node;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.client.transport.tls.TlsProviders;
import io.frsm.server.config.SecurityKeys;
import java.lang.System.Logger.Level;

/**
 * What secures a node's connections, from its {@code security.*} keys (docs/OPERATIONS.md
 * "Security"): mutual TLS with the node's own certificate — which must name this node of this
 * cluster — or, only when {@code security.insecure} says so, plaintext, announced by a warning.
 */
final class NodeSecurity {
  private static final System.Logger LOG = System.getLogger(FrsmNode.class.getName());

  private NodeSecurity() {}

  /**
   * @throws IllegalArgumentException if a TLS file cannot be read or used, or the certificate names
   *     another identity than this node's
   */
  static ChannelSecurity of(NodeSettings settings) {
    int self = settings.nodeId();
    String cluster = settings.get(io.frsm.server.config.NodeKeys.CLUSTER_ID);
    if (settings.get(SecurityKeys.INSECURE)) {
      LOG.log(
          Level.WARNING,
          "node {0}: security.insecure is true: the peer and client ports are PLAINTEXT and"
              + " UNAUTHENTICATED; anyone who reaches them can read and write every key and send"
              + " peer messages as any node. For tests and loopback only.",
          self);
      return ChannelSecurity.plaintext();
    }
    TlsContexts contexts =
        TlsContexts.load(
            new TlsFiles(
                settings.get(SecurityKeys.CA_BUNDLE),
                settings.get(SecurityKeys.CERTIFICATE_CHAIN),
                settings.get(SecurityKeys.PRIVATE_KEY)),
            TlsProviders.preferred(),
            settings.get(SecurityKeys.RELOAD_CHECK_INTERVAL));
    CertificateIdentity.Node expected = new CertificateIdentity.Node(cluster, self);
    if (!expected.equals(contexts.self())) {
      throw new IllegalArgumentException(
          "security.certificateChain "
              + settings.get(SecurityKeys.CERTIFICATE_CHAIN)
              + " is the certificate of "
              + contexts.self()
              + ", not of "
              + expected
              + " ("
              + expected.uri()
              + ")");
    }
    MutualTls tls = new MutualTls(contexts, cluster, settings.get(SecurityKeys.HANDSHAKE_TIMEOUT));
    LOG.log(
        Level.INFO,
        "node {0}: mutual TLS 1.3 on the peer and client ports as {1}",
        self,
        expected.uri());
    return tls;
  }
}
