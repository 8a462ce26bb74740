package io.frsm.api;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Builds a thin client that reaches a cluster through its ZooKeeper registry: {@code
 * FrsmClient.builder().zookeeper("zk1:2181").clusterId("prod").tls(ca, cert, key).build()}.
 *
 * <p>Nodes speak mutual TLS unless their operator turned it off, so a client names its certificate
 * with {@link #tls}, or says {@link #insecure()} for a plaintext cluster: one of them is required.
 *
 * <p>The implementation is loaded with {@link ServiceLoader} (frsm-api has no dependencies): put
 * {@code io.frsm:frsm-server} on the class path.
 */
public final class FrsmClientBuilder {
  private String zookeeper;
  private String clusterId;
  private Duration operationTimeout = Duration.ofSeconds(7);
  private Duration zookeeperSessionTimeout = Duration.ofSeconds(10);
  private TlsSettings tls;
  private boolean insecure;

  FrsmClientBuilder() {}

  /** Required: the ZooKeeper connect string, {@code host:port[,host:port...]}. */
  public FrsmClientBuilder zookeeper(String connectString) {
    this.zookeeper = Objects.requireNonNull(connectString, "connectString");
    return this;
  }

  /** Required: the cluster's id, as configured on its nodes. */
  public FrsmClientBuilder clusterId(String clusterId) {
    this.clusterId = Objects.requireNonNull(clusterId, "clusterId");
    return this;
  }

  /**
   * How long one call waits for a node's answer (default 7 s: above the nodes' default bounded
   * delay of 5 s, so an operation normally ends with the node's own verdict).
   */
  public FrsmClientBuilder operationTimeout(Duration timeout) {
    this.operationTimeout = positive(timeout, "operationTimeout");
    return this;
  }

  /** The client's ZooKeeper session timeout (default 10 s). */
  public FrsmClientBuilder zookeeperSessionTimeout(Duration timeout) {
    this.zookeeperSessionTimeout = positive(timeout, "zookeeperSessionTimeout");
    return this;
  }

  /**
   * Mutual TLS with these PEM files (docs/OPERATIONS.md "Security"): the CAs whose node
   * certificates the client trusts, the client's certificate chain (its first certificate names
   * {@code frsm://client/<name>?cluster=<cluster id>&roles=<read,write,...>}: the roles the CA
   * granted), and its unencrypted PKCS#8 key. The files are read again when they change.
   */
  public FrsmClientBuilder tls(Path caBundle, Path certificateChain, Path privateKey) {
    this.tls = new TlsSettings(caBundle, certificateChain, privateKey);
    this.insecure = false;
    return this;
  }

  /**
   * Plaintext, for a cluster whose nodes run with {@code security.insecure: true}: nothing is
   * encrypted and the nodes cannot know who the client is.
   */
  public FrsmClientBuilder insecure() {
    this.insecure = true;
    this.tls = null;
    return this;
  }

  private static Duration positive(Duration d, String name) {
    Objects.requireNonNull(d, name);
    if (d.isNegative() || d.isZero()) {
      throw new IllegalArgumentException(name + " must be positive, was " + d);
    }
    return d;
  }

  /**
   * Connects and returns the client.
   *
   * @throws IllegalStateException if zookeeper or clusterId is missing, or neither {@link #tls} nor
   *     {@link #insecure()} was chosen
   * @throws FrsmException if no implementation is on the class path or the cluster is unreachable
   */
  public FrsmClient build() {
    if (zookeeper == null || zookeeper.isBlank()) {
      throw new IllegalStateException("zookeeper(connectString) is required");
    }
    if (clusterId == null || clusterId.isBlank()) {
      throw new IllegalStateException("clusterId(id) is required");
    }
    if (tls == null && !insecure) {
      throw new IllegalStateException(
          "tls(caBundle, certificateChain, privateKey) is required, or insecure() for a cluster"
              + " whose nodes run plaintext");
    }
    Iterator<ClientProvider> providers =
        ServiceLoader.load(ClientProvider.class, FrsmClientBuilder.class.getClassLoader())
            .iterator();
    if (!providers.hasNext()) {
      throw new FrsmException(
          "no frsm client implementation on the class path: add the io.frsm:frsm-server"
              + " dependency (it provides "
              + ClientProvider.class.getName()
              + ")");
    }
    return providers
        .next()
        .create(
            new ClientSettings(
                zookeeper, clusterId, operationTimeout, zookeeperSessionTimeout, tls));
  }
}
