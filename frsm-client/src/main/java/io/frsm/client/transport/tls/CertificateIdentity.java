package io.frsm.client.transport.tls;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Who a certificate says its holder is: a node of a cluster, or a client of a cluster with roles.
 * Carried as exactly one URI subject alternative name (docs/formats/wire.md "Certificate
 * identity"):
 *
 * <pre>
 * frsm://node/&lt;node id&gt;?cluster=&lt;cluster id&gt;
 * frsm://client/&lt;name&gt;?cluster=&lt;cluster id&gt;&amp;roles=&lt;role&gt;[,&lt;role&gt;...]
 * </pre>
 *
 * A node id is a decimal in [0, 2^31-1] without sign or leading zero; a cluster id or client name
 * is 1-64 characters of [A-Za-z0-9_.-]; a role is read, write or admin, each at most once. The
 * grammar is exact (no other query parameter, no reordering, no escapes): a certificate that does
 * not match it has no identity and is refused. Only a CA the nodes trust can bind these names to a
 * key, so the identity is as good as the CA's issuance. Parsed by {@link IdentityUri}.
 */
public sealed interface CertificateIdentity {
  String SCHEME = "frsm://";

  /** The cluster the certificate was issued for. */
  String clusterId();

  /** What the holder may do on the client port. */
  Set<Role> roles();

  /** The URI subject alternative name that carries this identity. */
  String uri();

  /** A node: sends peer messages under {@code nodeId}, and forwards its clients' operations. */
  record Node(String clusterId, int nodeId) implements CertificateIdentity {
    /** A node forwards its embedded clients' gets and writes to range leaders. */
    private static final Set<Role> NODE_ROLES =
        Collections.unmodifiableSet(EnumSet.of(Role.READ, Role.WRITE));

    public Node {
      IdentityUri.requireName(clusterId, "cluster id");
      if (nodeId < 0) {
        throw new IllegalArgumentException("node id must be >= 0, was " + nodeId);
      }
    }

    @Override
    public Set<Role> roles() {
      return NODE_ROLES;
    }

    @Override
    public String uri() {
      return SCHEME + "node/" + nodeId + "?cluster=" + clusterId;
    }

    @Override
    public String toString() {
      return "node " + nodeId + " of cluster " + clusterId;
    }
  }

  /** An application's client, with the roles the CA granted it. */
  record Client(String clusterId, String name, Set<Role> roles) implements CertificateIdentity {
    public Client {
      IdentityUri.requireName(clusterId, "cluster id");
      IdentityUri.requireName(name, "client name");
      if (roles.isEmpty()) {
        throw new IllegalArgumentException("a client certificate grants at least one role");
      }
      roles = Collections.unmodifiableSet(EnumSet.copyOf(roles));
    }

    @Override
    public String uri() {
      List<String> names = new ArrayList<>();
      roles.forEach(r -> names.add(r.uriName()));
      return SCHEME
          + "client/"
          + name
          + "?cluster="
          + clusterId
          + "&roles="
          + String.join(",", names);
    }

    @Override
    public String toString() {
      return "client " + name + " of cluster " + clusterId + " " + roles;
    }
  }
}
