package io.frsm.server.node;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The one place test clusters get their TLS from: a CA of their own in the cluster's temp directory
 * and node and client certificates issued by it on first use (a few milliseconds each: EC P-256).
 */
final class TestTls {
  static final Duration VALIDITY = Duration.ofDays(1);

  private final Path dir;
  private final String clusterId;
  private final CertificateAuthority ca;
  private final Map<String, TlsFiles> issued = new ConcurrentHashMap<>();

  private TestTls(Path dir, String clusterId, CertificateAuthority ca) {
    this.dir = dir;
    this.clusterId = clusterId;
    this.ca = ca;
  }

  /** A new CA for {@code clusterId}, its files under {@code dir}. */
  static TestTls create(Path dir, String clusterId) {
    try {
      return new TestTls(
          dir, clusterId, CertificateAuthority.loadOrCreate(dir, clusterId, VALIDITY));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  CertificateAuthority authority() {
    return ca;
  }

  /** Node {@code nodeId}'s certificate, key and CA bundle. */
  TlsFiles node(int nodeId) {
    return issued.computeIfAbsent(
        "node-" + nodeId, name -> issue(name, new CertificateIdentity.Node(clusterId, nodeId)));
  }

  /** A client certificate named {@code name} with {@code roles}. */
  TlsFiles client(String name, Role... roles) {
    return issued.computeIfAbsent(
        "client-" + name,
        file ->
            issue(
                file,
                new CertificateIdentity.Client(clusterId, name, EnumSet.copyOf(List.of(roles)))));
  }

  /** A client with every role: what test clusters' thin clients use. */
  TlsFiles admin() {
    return client("test-admin", Role.READ, Role.WRITE, Role.ADMIN);
  }

  private TlsFiles issue(String name, CertificateIdentity identity) {
    try {
      return ca.issue(dir, name, identity, VALIDITY);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
