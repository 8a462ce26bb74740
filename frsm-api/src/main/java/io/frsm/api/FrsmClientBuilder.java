package io.frsm.api;

import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.TlsSettings;
import io.frsm.api.spi.ZooKeeperTlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * Builds a client that learns the cluster's topology from its nodes: {@code
 * FrsmClient.builder().seeds("node1:7500,node2:7500").clusterId("prod").tls(ca, cert,
 * key).build()}. The client asks one seed (then another, if that one does not answer) for the
 * cluster's members, ring and range leaders, keeps that view current over one control connection,
 * and sends each key's operations to its range's leader.
 *
 * <p>Nodes speak mutual TLS unless their operator turned it off, so a client names its certificate
 * with {@link #tls}, or says {@link #insecure()} for a plaintext cluster: one of them is required.
 * Every connection the client opens (the control connection included) uses that choice.
 *
 * <p>The implementation is loaded with {@link ServiceLoader} (frsm-api has no dependencies): put
 * {@code io.frsm:frsm-client} on the class path. {@link #zookeeper(String)} instead of seeds reads
 * the seeds from the cluster's ZooKeeper registry once, and needs {@code io.frsm:frsm-server}.
 */
public final class FrsmClientBuilder {
  /** The most network threads a client may run ({@link #ioThreads}). */
  public static final int MAX_IO_THREADS = ClientSettings.MAX_IO_THREADS;

  private List<String> seeds = List.of();
  private String zookeeper = "";
  private String clusterId;
  private Duration operationTimeout = Duration.ofSeconds(7);
  private Duration zookeeperSessionTimeout = Duration.ofSeconds(10);
  private Path zookeeperCredentialFile;
  private ZooKeeperTlsSettings zookeeperTls;
  private TlsSettings tls;
  private boolean insecure;
  private Duration connectTimeout = Duration.ofSeconds(10);
  private ClientObserver observer = ClientObserver.NONE;
  private int ioThreads = 1;
  private Duration keepaliveInterval = ClientSettings.DEFAULT_KEEPALIVE_INTERVAL;
  private java.util.concurrent.Executor callbackExecutor;
  private boolean shareEventLoops = ClientSettings.DEFAULT_SHARE_EVENT_LOOPS;

  FrsmClientBuilder() {}

  /**
   * The nodes to learn the cluster's topology from: {@code host:port[,host:port...]}, each the
   * client protocol address of a node (an IPv6 host in brackets, {@code [::1]:7500}). One live seed
   * is enough; more let the client start while some are down. Either this or {@link #zookeeper}.
   *
   * @throws IllegalArgumentException naming an entry that is not {@code host:port}
   */
  public FrsmClientBuilder seeds(String seeds) {
    Objects.requireNonNull(seeds, "seeds");
    List<String> parsed = new ArrayList<>();
    for (String entry : seeds.split(",", -1)) {
      parsed.add(seed(entry.trim()));
    }
    this.seeds = List.copyOf(parsed);
    return this;
  }

  private static String seed(String entry) {
    int colon = entry.lastIndexOf(':');
    String host = colon < 0 ? "" : entry.substring(0, colon);
    boolean bracketed = host.startsWith("[") && host.endsWith("]");
    if (bracketed) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = colon < 0 ? -1 : Integer.parseInt(entry.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    boolean ambiguous = host.contains(":") && !bracketed; // an IPv6 literal needs its brackets
    if (host.isEmpty()
        || host.contains("[")
        || host.contains("]")
        || ambiguous
        || port < 1
        || port > 65_535) {
      throw new IllegalArgumentException(
          "seeds: '" + entry + "' is not host:port (port 1-65535, IPv6 host in brackets)");
    }
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }

  /**
   * The ZooKeeper connect string, {@code host:port[,host:port...]}, where the cluster's nodes
   * register: the client reads the nodes' addresses there once and uses them as seeds (needs {@code
   * io.frsm:frsm-server} on the class path). Either this or {@link #seeds}.
   */
  public FrsmClientBuilder zookeeper(String connectString) {
    this.zookeeper = Objects.requireNonNull(connectString, "connectString");
    return this;
  }

  /**
   * The file of one line {@code user:password} the client authenticates to ZooKeeper with while it
   * reads the seeds there ({@code digest} scheme; the nodes' {@code zookeeper.credentialFile}, or a
   * read-only identity the nodes grant read access with {@code zookeeper.readerCredentialFile}).
   * Needed with {@link #zookeeper} unless the cluster runs with {@code security.insecure: true}
   * (docs/OPERATIONS.md "ZooKeeper authentication").
   */
  public FrsmClientBuilder zookeeperCredential(Path file) {
    this.zookeeperCredentialFile = Objects.requireNonNull(file, "file");
    return this;
  }

  /**
   * TLS to ZooKeeper while the client reads the seeds there, with PEM stores and host names
   * verified, as a node's {@code zookeeper.tls.*} keys say (docs/OPERATIONS.md "ZooKeeper TLS"):
   * {@code trustStore} holds the CAs of the ensemble's server certificates; {@code keyStore} (null:
   * none) the client's private key and certificate chain in one file, for an ensemble that requires
   * a client certificate. {@code connectString} must then name the ensemble's secure client ports.
   */
  public FrsmClientBuilder zookeeperTls(Path trustStore, Path keyStore) {
    return zookeeperTls(ZooKeeperTlsSettings.pem(trustStore, keyStore));
  }

  /** As above with any of the stores' settings: JKS or PKCS#12 with password files, and so on. */
  public FrsmClientBuilder zookeeperTls(ZooKeeperTlsSettings settings) {
    this.zookeeperTls = Objects.requireNonNull(settings, "settings");
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

  /**
   * A connection to a node that sent nothing for this long sends a keep-alive (default 20 s), so
   * that the node's idle timeout ({@code transport.idleTimeout}, default 60 s) spares a client that
   * only waits, e.g. for topology changes. Set it below the shortest idle timeout of the cluster's
   * nodes; a third of it lets two keep-alives be lost. The node answers each keep-alive, so the
   * client closes (and redials) a connection on which it read nothing for three intervals: the node
   * is gone without having closed it.
   */
  public FrsmClientBuilder keepaliveInterval(Duration interval) {
    this.keepaliveInterval = positive(interval, "keepaliveInterval");
    return this;
  }

  /** The ZooKeeper session timeout used while reading the seeds there (default 10 s). */
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
   * How long {@link #build()} waits for a node to tell the cluster's topology (default 10 s); it
   * fails if none does by then.
   */
  public FrsmClientBuilder connectTimeout(Duration timeout) {
    this.connectTimeout = positive(timeout, "connectTimeout");
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

  /**
   * Hears every call's end and every topology change, for the service's own metrics (default:
   * nothing). With Micrometer: {@code observer(new MicrometerObserver(registry))} from
   * frsm-client's {@code io.frsm.client.micrometer} package.
   */
  public FrsmClientBuilder observer(ClientObserver observer) {
    this.observer = Objects.requireNonNull(observer, "observer");
    return this;
  }

  /**
   * The network threads the client's connections (one per node, shared by every caller thread) run
   * on (default 1, at most {@value #MAX_IO_THREADS}). One is enough for most services; more let the
   * connections to different nodes encode and decode in parallel under heavy load.
   *
   * @throws IllegalArgumentException if {@code threads} is not 1-{@value #MAX_IO_THREADS}
   */
  public FrsmClientBuilder ioThreads(int threads) {
    if (threads < 1 || threads > MAX_IO_THREADS) {
      throw new IllegalArgumentException(
          "ioThreads must be 1-" + MAX_IO_THREADS + ", was " + threads);
    }
    this.ioThreads = threads;
    return this;
  }

  /**
   * Where the futures of async calls complete, and so where code chained on them runs (default: a
   * pool of the client's own threads, one hand-off from the network thread per call, so such code
   * may block). {@code Runnable::run} completes them on the client's network thread that received
   * the answer: no thread is woken per call, the cheapest for code that never blocks — chaining the
   * next async call, completing a future of the service's own. Such code must never block: it holds
   * up every connection on that thread. A sync call of this client made there (whose answer that
   * thread would have to read) fails {@link IllegalStateException} instead of deadlocking, and so
   * does one on the client's timer thread (which completes resends and delayed fences). An executor
   * that rejects a task has it run on the completing thread.
   */
  public FrsmClientBuilder callbackExecutor(java.util.concurrent.Executor executor) {
    this.callbackExecutor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /**
   * Whether the client runs its connections on network threads it shares with the other clients of
   * this process that share theirs and ask for as many {@link #ioThreads} (default true; the
   * threads end with the last such client), or on threads of its own (false). Shared threads cost
   * fewer threads and fewer wake-ups per call when a process runs several clients: a request
   * offered while the shared thread is awake is written in that turn, where a thread of its own
   * would first have to be woken. What a thread of its own still gives: a client whose callbacks
   * run on the network thread ({@link #callbackExecutor} {@code Runnable::run}) holds up only its
   * own connections when they are slow, and may make sync calls of another client there (on a
   * shared thread such a call is refused with {@link IllegalStateException}, as on its own).
   */
  public FrsmClientBuilder shareEventLoops(boolean share) {
    this.shareEventLoops = share;
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
   * @throws IllegalStateException if clusterId is missing, not exactly one of seeds and zookeeper
   *     is set, or neither {@link #tls} nor {@link #insecure()} was chosen
   * @throws FrsmException if no implementation for these settings is on the class path, or the
   *     cluster is unreachable
   */
  public FrsmClient build() {
    boolean fromZooKeeper = !zookeeper.isBlank();
    if (seeds.isEmpty() == !fromZooKeeper) {
      throw new IllegalStateException(
          seeds.isEmpty()
              ? "seeds(hostPorts) or zookeeper(connectString) is required"
              : "set seeds(hostPorts) or zookeeper(connectString), not both");
    }
    if (clusterId == null || clusterId.isBlank()) {
      throw new IllegalStateException("clusterId(id) is required");
    }
    if (tls == null && !insecure) {
      throw new IllegalStateException(
          "tls(caBundle, certificateChain, privateKey) is required, or insecure() for a cluster"
              + " whose nodes run plaintext");
    }
    ClientSettings settings =
        new ClientSettings(
            seeds,
            fromZooKeeper ? zookeeper : "",
            clusterId,
            operationTimeout,
            zookeeperSessionTimeout,
            connectTimeout,
            observer,
            tls,
            ioThreads,
            fromZooKeeper ? zookeeperCredentialFile : null,
            fromZooKeeper ? zookeeperTls : null,
            keepaliveInterval,
            callbackExecutor,
            shareEventLoops);
    for (ClientProvider provider :
        ServiceLoader.load(ClientProvider.class, FrsmClientBuilder.class.getClassLoader())) {
      if (provider.accepts(settings)) {
        return provider.create(settings);
      }
    }
    throw new FrsmException(
        "no frsm client implementation on the class path for "
            + (fromZooKeeper
                ? "a ZooKeeper connect string: add the io.frsm:frsm-server dependency"
                : "seeds: add the io.frsm:frsm-client dependency")
            + " (it provides "
            + ClientProvider.class.getName()
            + ")");
  }
}
