package io.frsm.server.multiprocess;

import io.frsm.client.transport.tls.CertificateIdentity;
import io.frsm.client.transport.tls.Role;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.server.certs.CertificateAuthority;
import io.frsm.server.zk.ZooKeeperCredential;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;

/**
 * A multi-process test's CA, in {@code dir}: the thin clients' certificate (read and write), an
 * operator's certificate with the admin role only (for {@code frsm admin}), and the files of the
 * nodes' ZooKeeper identity and of the read-only one their znodes grant.
 */
record ClusterCertificates(
    Path dir,
    String clusterId,
    CertificateAuthority ca,
    TlsFiles client,
    TlsFiles admin,
    Path node,
    Path reader) {

  static ClusterCertificates create(Path dir, String clusterId) throws Exception {
    CertificateAuthority ca = CertificateAuthority.loadOrCreate(dir, clusterId, Duration.ofDays(1));
    TlsFiles client =
        ca.issue(
            dir,
            "client-recorder",
            new CertificateIdentity.Client(
                clusterId, "recorder", EnumSet.of(Role.READ, Role.WRITE)),
            Duration.ofDays(1));
    TlsFiles admin =
        ca.issue(
            dir,
            "client-operator",
            new CertificateIdentity.Client(clusterId, "operator", EnumSet.of(Role.ADMIN)),
            Duration.ofDays(1));
    Path node = dir.resolve("zookeeper-node.credential");
    ZooKeeperCredential.create(node, "frsm-node");
    Path reader = dir.resolve("zookeeper-reader.credential");
    ZooKeeperCredential.create(reader, "frsm-reader");
    return new ClusterCertificates(dir, clusterId, ca, client, admin, node, reader);
  }

  /** Node {@code id}'s certificate, key and CA bundle. */
  TlsFiles issueNode(int id) throws Exception {
    return ca.issueNode(dir, clusterId, id, Duration.ofDays(1));
  }
}
