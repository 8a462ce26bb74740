package io.frsm.api.spi;

import java.nio.file.Path;
import java.util.Objects;

/**
 * TLS from a client to the ZooKeeper ensemble it reads the cluster's seeds from (docs/OPERATIONS.md
 * "ZooKeeper TLS"): the same stores as a node's {@code zookeeper.tls.*} keys, in any format
 * ZooKeeper's client reads (PEM, JKS or PKCS#12, by the file's extension).
 *
 * @param trustStore the CAs whose ZooKeeper server certificates are trusted
 * @param trustStorePasswordFile file of the trust store's password, or null (a PEM store has none)
 * @param keyStore the private key and certificate chain shown to ZooKeeper, or null (the ensemble
 *     must then not require a client certificate)
 * @param keyStorePasswordFile file of the key store's password, or null
 * @param hostnameVerification whether a server certificate must name the host dialed
 */
public record ZooKeeperTlsSettings(
    Path trustStore,
    Path trustStorePasswordFile,
    Path keyStore,
    Path keyStorePasswordFile,
    boolean hostnameVerification) {
  public ZooKeeperTlsSettings {
    Objects.requireNonNull(trustStore, "trustStore");
    if (keyStorePasswordFile != null && keyStore == null) {
      throw new IllegalArgumentException("a key store password without a key store");
    }
  }

  /** PEM stores (no passwords), host names verified; {@code keyStore} may be null. */
  public static ZooKeeperTlsSettings pem(Path trustStore, Path keyStore) {
    return new ZooKeeperTlsSettings(trustStore, null, keyStore, null, true);
  }
}
