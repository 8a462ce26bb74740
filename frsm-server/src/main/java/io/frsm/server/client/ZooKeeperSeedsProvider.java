package io.frsm.server.client;

import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.spi.ClientProvider;
import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.ZooKeeperTlsSettings;
import io.frsm.client.SeedClient;
import io.frsm.server.ring.NodeInfo;
import io.frsm.server.zk.MembershipRegistry;
import io.frsm.server.zk.ZkLayout;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.frsm.server.zk.ZooKeeperTls;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

/**
 * Registered in {@code META-INF/services}: {@code FrsmClient.builder().zookeeper(...)} reads the
 * client addresses of the cluster's registered members from ZooKeeper once, closes the session, and
 * builds a {@link SeedClient} with them as seeds. The client holds no ZooKeeper session after that:
 * it learns every later change from the nodes, like a client given seeds. The session authenticates
 * with the settings' ZooKeeper credential, if any; a cluster that guards its znodes refuses an
 * anonymous one (the error then says so). With the settings' ZooKeeper TLS it speaks TLS to the
 * ensemble, as a node with {@code zookeeper.tls.*} does ({@link ZooKeeperTls}). For tools that know
 * the ensemble but not the nodes (the {@code frsm} command, the local cluster, tests).
 */
public final class ZooKeeperSeedsProvider implements ClientProvider {
  @Override
  public boolean accepts(ClientSettings settings) {
    return !settings.fromSeeds();
  }

  @Override
  public FrsmClient create(ClientSettings settings) {
    List<String> seeds = readSeeds(settings);
    if (seeds.isEmpty()) {
      throw new FrsmException(
          "no member of cluster "
              + settings.clusterId()
              + " is registered in ZooKeeper at "
              + settings.zookeeper());
    }
    return SeedClient.connect(settings.startingFrom(seeds));
  }

  /** The server side's form of the client's ZooKeeper TLS settings; null: plaintext. */
  private static ZooKeeperTls tls(ZooKeeperTlsSettings s) {
    return s == null
        ? null
        : new ZooKeeperTls(
            s.trustStore(),
            s.trustStorePasswordFile(),
            s.keyStore(),
            s.keyStorePasswordFile(),
            s.hostnameVerification());
  }

  /** The registered members' client addresses, {@code host:port} (IPv6 in brackets). */
  private static List<String> readSeeds(ClientSettings settings) {
    int sessionMs = (int) settings.zookeeperSessionTimeout().toMillis();
    ZooKeeperCredential credential;
    ZooKeeperTls tls;
    try {
      credential =
          settings.zookeeperCredentialFile() == null
              ? null
              : ZooKeeperCredential.read(settings.zookeeperCredentialFile());
      tls = tls(settings.zookeeperTls());
      if (tls != null) {
        tls.clientConfig(); // the stores can be read: say which one now, not time out later
      }
    } catch (IllegalArgumentException e) {
      throw new FrsmException(e.getMessage(), e);
    }
    try (CuratorFramework zk =
        ZooKeeperTls.apply(ZooKeeperAccess.builder(settings.zookeeper(), credential), tls)
            .sessionTimeoutMs(sessionMs)
            .connectionTimeoutMs(Math.min(sessionMs, 15_000))
            .retryPolicy(new ExponentialBackoffRetry(100, 3))
            .build()) {
      zk.start();
      if (!zk.blockUntilConnected(sessionMs, TimeUnit.MILLISECONDS)) {
        throw new FrsmException(
            "cannot reach ZooKeeper at "
                + settings.zookeeper()
                + " within "
                + sessionMs
                + " ms: "
                + (tls == null
                    ? "plaintext; if these are the ensemble's secure client ports, give"
                        + " zookeeperTls(trustStore, keyStore)"
                    : "TLS; these must be the ensemble's secure client ports, the server's"
                        + " certificate must chain to the trust store"
                        + (tls.hostnameVerification() ? " and name the host dialed" : "")
                        + ", and the key store must hold a certificate the ensemble trusts"));
      }
      List<String> seeds = new ArrayList<>();
      try (MembershipRegistry registry =
          new MembershipRegistry(zk, new ZkLayout(settings.clusterId()))) {
        for (NodeInfo n : registry.members()) {
          if (!n.host().isEmpty() && n.clientPort() > 0) {
            seeds.add(
                n.host().contains(":")
                    ? "[" + n.host() + "]:" + n.clientPort()
                    : n.host() + ":" + n.clientPort());
          }
        }
      }
      return seeds;
    } catch (FrsmException e) {
      throw e;
    } catch (KeeperException.NoAuthException e) {
      throw new FrsmException(
          "ZooKeeper refuses to show cluster "
              + settings.clusterId()
              + "'s members to "
              + (credential == null
                  ? "a session without a credential: give zookeeperCredential(file)"
                  : "user " + credential.user() + ": give the credential the nodes grant read")
              + " (their zookeeper.readerCredentialFile) (NoAuth for "
              + e.getPath()
              + ")",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new FrsmException("interrupted while reading the cluster's members", e);
    } catch (Exception e) {
      throw new FrsmException(
          "cannot read cluster " + settings.clusterId() + "'s members from ZooKeeper: " + e, e);
    }
  }
}
