package io.frsm.server.zk;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;

/**
 * TLS from a frsm process to the ZooKeeper ensemble (docs/OPERATIONS.md "ZooKeeper TLS"): the
 * stores ZooKeeper's own client reads (PEM, JKS or PKCS#12, by the file's extension), set on each
 * session's {@link ZKClientConfig} and never as JVM-wide system properties, so the sessions of one
 * process (several nodes in a test, a node and its embedded client) each keep their own.
 *
 * @param trustStore the CAs whose ZooKeeper server certificates are trusted
 * @param trustStorePasswordFile file of the trust store's password, or null (none: a PEM store)
 * @param keyStore the private key and certificate chain shown to ZooKeeper, or null (none: the
 *     ensemble must not require a client certificate)
 * @param keyStorePasswordFile file of the key store's password, or null
 * @param hostnameVerification whether a server certificate must name the host dialed
 */
public record ZooKeeperTls(
    Path trustStore,
    Path trustStorePasswordFile,
    Path keyStore,
    Path keyStorePasswordFile,
    boolean hostnameVerification) {

  /** ZooKeeper's Netty client: the only one of its clients that speaks TLS. */
  static final String NETTY_CLIENT_SOCKET = "org.apache.zookeeper.ClientCnxnSocketNetty";

  public ZooKeeperTls {
    Objects.requireNonNull(trustStore, "trustStore");
    if (keyStorePasswordFile != null && keyStore == null) {
      throw new IllegalArgumentException("a key store password without a key store");
    }
  }

  /**
   * A client configuration for one session: TLS on, through ZooKeeper's Netty client, with these
   * stores. Fresh each call: ZooKeeper's client keeps state in it.
   *
   * @throws IllegalArgumentException if a file cannot be read (named, with the reason): the node
   *     then fails at start instead of retrying a session that can never connect
   */
  public ZKClientConfig clientConfig() {
    readable(trustStore, "zookeeper.tls.trustStore");
    ZKClientConfig config = new ZKClientConfig();
    config.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
    config.setProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, NETTY_CLIENT_SOCKET);
    try (ClientX509Util names = new ClientX509Util()) {
      config.setProperty(names.getSslTruststoreLocationProperty(), trustStore.toString());
      if (trustStorePasswordFile != null) {
        readable(trustStorePasswordFile, "zookeeper.tls.trustStorePasswordFile");
        config.setProperty(
            names.getSslTruststorePasswdPathProperty(), trustStorePasswordFile.toString());
      }
      if (keyStore != null) {
        readable(keyStore, "zookeeper.tls.keyStore");
        config.setProperty(names.getSslKeystoreLocationProperty(), keyStore.toString());
      }
      if (keyStorePasswordFile != null) {
        readable(keyStorePasswordFile, "zookeeper.tls.keyStorePasswordFile");
        config.setProperty(
            names.getSslKeystorePasswdPathProperty(), keyStorePasswordFile.toString());
      }
      config.setProperty(
          names.getSslHostnameVerificationEnabledProperty(),
          Boolean.toString(hostnameVerification));
    }
    return config;
  }

  /** {@code builder} with TLS as {@code tls} says; unchanged if {@code tls} is null (plaintext). */
  public static CuratorFrameworkFactory.Builder apply(
      CuratorFrameworkFactory.Builder builder, ZooKeeperTls tls) {
    return tls == null ? builder : builder.zkClientConfig(tls.clientConfig());
  }

  /**
   * What to tell someone whose session to {@code connectString} never connected, with TLS as {@code
   * tls} says: a plaintext client at a secure port, or the reverse, is only ever a silent timeout
   * in ZooKeeper's client.
   */
  public static String connectHint(ZooKeeperTls tls) {
    return tls == null
        ? "plaintext (no zookeeper.tls.trustStore): if these are the ensemble's secure client"
            + " ports, set zookeeper.tls.trustStore (and usually zookeeper.tls.keyStore)"
        : "TLS (zookeeper.tls.trustStore is set): these must be the ensemble's secure client ports,"
            + " the server's certificate must chain to the trust store"
            + (tls.hostnameVerification() ? " and name the host dialed" : "")
            + ", and the key store must hold a certificate the ensemble trusts";
  }

  private static void readable(Path file, String key) {
    try (var in = Files.newInputStream(file)) {
      in.read();
    } catch (IOException e) {
      throw new IllegalArgumentException(
          key
              + " "
              + file
              + " cannot be read: "
              + e.getClass().getSimpleName()
              + " "
              + e.getMessage(),
          e);
    }
  }
}
