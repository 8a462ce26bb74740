package io.frsm.client.transport.tls;

import java.util.function.Predicate;

/**
 * Which certificate identities a connection accepts, besides being of this cluster (which {@link
 * IdentityGate} checks first).
 *
 * @param description for logs, e.g. "node 3"
 * @param accepts true for an identity the connection may carry
 */
public record IdentityRule(String description, Predicate<CertificateIdentity> accepts) {

  /** The peer port: any node of the cluster (the peer transport checks each frame's sender). */
  public static IdentityRule anyNode() {
    return new IdentityRule("a node", id -> id instanceof CertificateIdentity.Node);
  }

  /** A dialed peer connection: the node dialed and no other. */
  public static IdentityRule node(int nodeId) {
    return new IdentityRule(
        "node " + nodeId, id -> id instanceof CertificateIdentity.Node n && n.nodeId() == nodeId);
  }

  /** The client port: a client, or a node forwarding its clients' operations. */
  public static IdentityRule nodeOrClient() {
    return new IdentityRule("a node or a client", id -> true);
  }
}
