package io.frsm.api.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What a user configured on {@link io.frsm.api.FrsmClientBuilder}, handed to the {@link
 * ClientProvider} that builds the client.
 *
 * @param zookeeper the ZooKeeper connect string ({@code host:port[,host:port...]}) where the
 *     cluster registers its members
 * @param clusterId the cluster's id: the ZooKeeper namespace and the id every frame carries
 * @param operationTimeout how long one call waits for a node's answer before it gives up (a
 *     mutation then fails with {@code OutcomeUnknownException}, a read with {@code
 *     NotExecutedException})
 * @param zookeeperSessionTimeout the client's ZooKeeper session timeout
 * @param tls the client's certificate, key and trusted CAs; null: plaintext (the user chose {@code
 *     insecure()})
 */
public record ClientSettings(
    String zookeeper,
    String clusterId,
    Duration operationTimeout,
    Duration zookeeperSessionTimeout,
    TlsSettings tls) {

  public ClientSettings {
    Objects.requireNonNull(zookeeper, "zookeeper");
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(operationTimeout, "operationTimeout");
    Objects.requireNonNull(zookeeperSessionTimeout, "zookeeperSessionTimeout");
  }

  /** Plaintext settings (no TLS). */
  public ClientSettings(
      String zookeeper,
      String clusterId,
      Duration operationTimeout,
      Duration zookeeperSessionTimeout) {
    this(zookeeper, clusterId, operationTimeout, zookeeperSessionTimeout, null);
  }
}
