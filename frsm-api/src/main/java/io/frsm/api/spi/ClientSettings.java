package io.frsm.api.spi;

import io.frsm.api.ClientObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * What a user configured on {@link io.frsm.api.FrsmClientBuilder}, handed to the {@link
 * ClientProvider} that builds the client. Exactly one of {@code seeds} and {@code zookeeper} is
 * set.
 *
 * <p>One constructor, every component named: the defaults live in the builder alone (and in the
 * constants here it reads), not in a constructor per component added since.
 *
 * @param seeds the nodes to ask for the cluster's topology first, each {@code host:port} of a
 *     node's client protocol (IPv6 hosts in brackets); empty if the client finds the cluster
 *     through ZooKeeper
 * @param zookeeper the ZooKeeper connect string ({@code host:port[,host:port...]}) where the
 *     cluster registers its members, or empty if the client starts from {@code seeds}
 * @param clusterId the cluster's id: the ZooKeeper namespace and the id every frame carries
 * @param operationTimeout how long one call waits for a node's answer before it gives up (a
 *     mutation then fails with {@code OutcomeUnknownException}, a read with {@code
 *     NotExecutedException})
 * @param zookeeperSessionTimeout the client's ZooKeeper session timeout (with {@code zookeeper})
 * @param connectTimeout how long building the client waits for the cluster's first answer
 * @param observer hears every call's end and every topology change ({@link ClientObserver#NONE} by
 *     default)
 * @param tls the client's certificate, key and trusted CAs, used on every connection it opens;
 *     null: plaintext (the user chose {@code insecure()})
 * @param ioThreads the network threads the client runs its connections on (1-64)
 * @param zookeeperCredentialFile the file of one line {@code user:password} the client
 *     authenticates to ZooKeeper with (with {@code zookeeper}); null: an anonymous session, which
 *     only a cluster with {@code security.insecure: true} lets read its members
 * @param zookeeperTls TLS to ZooKeeper (with {@code zookeeper}); null: plaintext
 * @param keepaliveInterval a connection to a node that sent nothing this long sends a keep-alive,
 *     so the node's idle timeout spares it
 * @param callbackExecutor where the futures of async calls complete ({@code
 *     FrsmClientBuilder#callbackExecutor}); null: a pool of the client's own threads
 * @param shareEventLoops whether the client runs its connections on network threads shared with the
 *     process's other clients of as many {@code ioThreads} ({@code
 *     FrsmClientBuilder#shareEventLoops}); false: threads of its own
 */
public record ClientSettings(
    List<String> seeds,
    String zookeeper,
    String clusterId,
    Duration operationTimeout,
    Duration zookeeperSessionTimeout,
    Duration connectTimeout,
    ClientObserver observer,
    TlsSettings tls,
    int ioThreads,
    Path zookeeperCredentialFile,
    ZooKeeperTlsSettings zookeeperTls,
    Duration keepaliveInterval,
    Executor callbackExecutor,
    boolean shareEventLoops) {

  /** Clients share the process's network threads unless told otherwise. */
  public static final boolean DEFAULT_SHARE_EVENT_LOOPS = true;

  /** The most network threads a client may run ({@code FrsmClientBuilder#ioThreads}). */
  public static final int MAX_IO_THREADS = 64;

  /** A third of the nodes' default idle timeout (60 s): two keep-alives may be lost. */
  public static final Duration DEFAULT_KEEPALIVE_INTERVAL = Duration.ofSeconds(20);

  public ClientSettings {
    seeds = List.copyOf(seeds);
    Objects.requireNonNull(zookeeper, "zookeeper");
    Objects.requireNonNull(clusterId, "clusterId");
    Objects.requireNonNull(operationTimeout, "operationTimeout");
    Objects.requireNonNull(zookeeperSessionTimeout, "zookeeperSessionTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    Objects.requireNonNull(observer, "observer");
    Objects.requireNonNull(keepaliveInterval, "keepaliveInterval");
    if (keepaliveInterval.isNegative() || keepaliveInterval.toMillis() < 1) {
      throw new IllegalArgumentException(
          "keepaliveInterval must be at least 1 ms, was " + keepaliveInterval);
    }
    if (ioThreads < 1 || ioThreads > MAX_IO_THREADS) {
      throw new IllegalArgumentException(
          "ioThreads must be 1-" + MAX_IO_THREADS + ", was " + ioThreads);
    }
    if (seeds.isEmpty() == zookeeper.isEmpty()) {
      throw new IllegalArgumentException("exactly one of seeds and zookeeper must be set");
    }
  }

  /**
   * These settings started from {@code found} instead: what a client that finds the cluster through
   * ZooKeeper hands on once it read the members' addresses there. Everything of ZooKeeper (connect
   * string, credential, TLS) is dropped; the rest is kept.
   *
   * @param found the members' client addresses, {@code host:port}; not empty
   */
  public ClientSettings startingFrom(List<String> found) {
    return new ClientSettings(
        found,
        "",
        clusterId,
        operationTimeout,
        zookeeperSessionTimeout,
        connectTimeout,
        observer,
        tls,
        ioThreads,
        null,
        null,
        keepaliveInterval,
        callbackExecutor,
        shareEventLoops);
  }

  /** Whether the client starts from seed nodes (else from ZooKeeper). */
  public boolean fromSeeds() {
    return !seeds.isEmpty();
  }
}
