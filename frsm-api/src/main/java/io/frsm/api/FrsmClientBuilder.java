package io.frsm.api;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Builds a thin client that reaches a cluster through its ZooKeeper registry: {@code
 * FrsmClient.builder().zookeeper("zk1:2181").clusterId("prod").build()}.
 *
 * <p>The implementation is loaded with {@link ServiceLoader} (frsm-api has no dependencies): put
 * {@code io.frsm:frsm-server} on the class path.
 */
public final class FrsmClientBuilder {
  private String zookeeper;
  private String clusterId;
  private Duration operationTimeout = Duration.ofSeconds(7);
  private Duration zookeeperSessionTimeout = Duration.ofSeconds(10);

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
   * @throws IllegalStateException if zookeeper or clusterId is missing
   * @throws FrsmException if no implementation is on the class path or the cluster is unreachable
   */
  public FrsmClient build() {
    if (zookeeper == null || zookeeper.isBlank()) {
      throw new IllegalStateException("zookeeper(connectString) is required");
    }
    if (clusterId == null || clusterId.isBlank()) {
      throw new IllegalStateException("clusterId(id) is required");
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
            new ClientSettings(zookeeper, clusterId, operationTimeout, zookeeperSessionTimeout));
  }
}
