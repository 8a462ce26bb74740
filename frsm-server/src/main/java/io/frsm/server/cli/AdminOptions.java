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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** How {@code frsm admin} reaches the cluster: {@code frsm cli}'s {@link ConnectionOptions}. */
final class AdminOptions {
  private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(15);
  private static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  @Mixin ConnectionOptions connection;

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  /** Connections over the chosen security; a bad option is a usage error (exit 2). */
  AdminConnections connect() {
    connection.requireOneSource(spec.commandLine());
    return new AdminConnections(connection.cluster, security(), ANSWER_TIMEOUT);
  }

  /** The nodes to ask first: the seeds, or every node registered in ZooKeeper. */
  List<InetSocketAddress> nodes() {
    if (connection.seeds != null) {
      List<InetSocketAddress> out = new ArrayList<>();
      for (String seed : connection.seeds.split(",", -1)) {
        out.add(seed(seed.strip()));
      }
      return out;
    }
    try (CuratorFramework zk =
        ZooKeeperConnect.client(spec, connection.zookeeper, connection.zookeeperCredential)) {
      zk.start();
      if (!zk.blockUntilConnected(15, TimeUnit.SECONDS)) {
        throw new AdminException("cannot reach ZooKeeper at " + connection.zookeeper);
      }
      List<InetSocketAddress> out = new ArrayList<>();
      try (MembershipRegistry registry =
          new MembershipRegistry(zk, new ZkLayout(connection.cluster))) {
        for (NodeInfo n : registry.members()) {
          out.add(new InetSocketAddress(n.host(), n.clientPort()));
        }
      }
      if (out.isEmpty()) {
        throw new AdminException("no node of cluster '" + connection.cluster + "' is registered");
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
    if (connection.plaintext(spec.commandLine())) {
      return ChannelSecurity.plaintext();
    }
    try {
      TlsContexts contexts =
          TlsContexts.load(
              new TlsFiles(connection.caBundle, connection.certificateChain, connection.privateKey),
              TlsProviders.preferred(),
              Duration.ofMinutes(10));
      return new MutualTls(contexts, connection.cluster, HANDSHAKE_TIMEOUT);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
  }
}
