package io.frsm.server.cli;

import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.client.transport.tls.TlsProviders;
import io.frsm.server.cli.AdminConnections.AdminException;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.ZkLayout;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/** How {@code frsm admin} reaches the cluster: the options {@code frsm cli} has, same meaning. */
final class AdminOptions {
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  @Option(
      names = "--seeds",
      paramLabel = "HOST:PORT[,HOST:PORT...]",
      scope = ScopeType.INHERIT,
      description =
          "Client addresses of some of the cluster's nodes: the others are learned there.")
  String seeds;

  @Option(
      names = "--zookeeper",
      paramLabel = "HOST:PORT",
      scope = ScopeType.INHERIT,
      description = "The cluster's ZooKeeper: the registered nodes' addresses are read there.")
  String zookeeper;

  @Option(
      names = "--zookeeper-credential",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description =
          "With --zookeeper: the file of one line user:password to authenticate to ZooKeeper with"
              + " (the nodes' zookeeper.readerCredentialFile or credentialFile); needed unless the"
              + " cluster runs with security.insecure: true.")
  Path zookeeperCredential;

  @Option(
      names = "--cluster",
      paramLabel = "ID",
      defaultValue = "frsm",
      scope = ScopeType.INHERIT,
      description = "The cluster id (default: ${DEFAULT-VALUE}; frsm local's: local).")
  String cluster;

  @Option(
      names = "--ca",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description = "PEM: the CAs whose node certificates to trust (with --cert and --key).")
  Path caBundle;

  @Option(
      names = "--cert",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description = "PEM: a client certificate with the admin role.")
  Path certificateChain;

  @Option(
      names = "--key",
      paramLabel = "FILE",
      scope = ScopeType.INHERIT,
      description = "PEM: its private key, unencrypted PKCS#8.")
  Path privateKey;

  @Option(
      names = "--insecure",
      scope = ScopeType.INHERIT,
      description = "Plaintext, for a cluster with security.insecure: true (instead of --ca ...).")
  boolean insecure;

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  /** Connections over the chosen security; a bad option is a usage error (exit 2). */
  AdminConnections connect() {
    if ((seeds == null) == (zookeeper == null)) {
      throw new ParameterException(spec.commandLine(), "give --seeds or --zookeeper (one of them)");
    }
    return new AdminConnections(cluster, security(), ANSWER_TIMEOUT);
  }

  /** The nodes to ask first: the seeds, or every node registered in ZooKeeper. */
  List<InetSocketAddress> nodes() {
    if (seeds != null) {
      List<InetSocketAddress> out = new ArrayList<>();
      for (String seed : seeds.split(",", -1)) {
        out.add(seed(seed.strip()));
      }
      return out;
    }
    try (CuratorFramework zk = ZooKeeperConnect.client(spec, zookeeper, zookeeperCredential)) {
      zk.start();
      if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
        throw new AdminException("cannot reach ZooKeeper at " + zookeeper);
      }
      List<InetSocketAddress> out = new ArrayList<>();
      try (MembershipRegistry registry = new MembershipRegistry(zk, new ZkLayout(cluster))) {
        for (NodeInfo n : registry.members()) {
          out.add(new InetSocketAddress(n.host(), n.clientPort()));
        }
      }
      if (out.isEmpty()) {
        throw new AdminException("no node of cluster '" + cluster + "' is registered");
      }
      return out;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AdminException("interrupted");
    } catch (AdminException e) {
      throw e;
    } catch (Exception e) {
      throw new AdminException("cannot read the registered nodes: " + e);
    }
  }

  private InetSocketAddress seed(String seed) {
    int colon = seed.lastIndexOf(':');
    int port = -1;
    if (colon > 0) {
      try {
        port = Integer.parseInt(seed.substring(colon + 1));
      } catch (NumberFormatException e) {
        port = -1;
      }
    }
    if (port < 1 || port > 65_535) {
      throw new ParameterException(spec.commandLine(), "seed '" + seed + "' is not host:port");
    }
    String host = seed.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return new InetSocketAddress(host, port);
  }

  /** TLS with the three files, or plaintext with --insecure: exactly one of them. */
  private ChannelSecurity security() {
    boolean anyFile = caBundle != null || certificateChain != null || privateKey != null;
    if (insecure && anyFile) {
      throw new ParameterException(
          spec.commandLine(), "--insecure excludes --ca, --cert and --key");
    }
    if (insecure) {
      return ChannelSecurity.plaintext();
    }
    if (caBundle == null || certificateChain == null || privateKey == null) {
      throw new ParameterException(
          spec.commandLine(),
          "--ca, --cert and --key are needed (the nodes speak mutual TLS), or --insecure for a"
              + " plaintext cluster");
    }
    try {
      TlsContexts contexts =
          TlsContexts.load(
              new TlsFiles(caBundle, certificateChain, privateKey),
              TlsProviders.preferred(),
              Duration.ofMinutes(10));
      return new MutualTls(contexts, cluster, HANDSHAKE_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
