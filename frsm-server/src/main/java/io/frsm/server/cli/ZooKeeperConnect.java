package io.frsm.server.cli;

import io.frsm.server.config.ZooKeeperKeys;
import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import io.frsm.server.zk.ZooKeeperTls;
import java.nio.file.Path;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The ZooKeeper client of a command given {@code --zookeeper} and {@code --zookeeper-credential}
 * ({@code frsm cli}, {@code frsm admin}): authenticated with the credential file when one is given,
 * since frsm's znodes are closed to anonymous sessions; over TLS when the environment names a trust
 * store in {@code FRSM_ZOOKEEPER_TLS_TRUST_STORE} (and the other {@code FRSM_ZOOKEEPER_TLS_*}
 * variables: the names a node's {@code zookeeper.tls.*} keys have).
 */
final class ZooKeeperConnect {
  private ZooKeeperConnect() {}

  /**
   * A new, unstarted client of {@code connect}; the caller starts and closes it.
   *
   * @throws ParameterException if the credential file cannot be read, or a TLS variable is
   *     malformed (a usage error, exit 2)
   */
  static CuratorFramework client(CommandSpec spec, String connect, Path credentialFile) {
    return client(spec, connect, credentialFile, System.getenv());
  }

  /** As above, the TLS settings read from {@code environment}. */
  static CuratorFramework client(
      CommandSpec spec, String connect, Path credentialFile, Map<String, String> environment) {
    ZooKeeperCredential credential;
    ZooKeeperTls tls;
    try {
      credential = credentialFile == null ? null : ZooKeeperCredential.read(credentialFile);
      tls = ZooKeeperKeys.tlsFromEnvironment(environment);
      if (tls != null) {
        tls.clientConfig(); // the stores can be read: a usage error now, not a silent timeout
      }
    } catch (IllegalArgumentException e) { // a ConfigException too
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return ZooKeeperTls.apply(ZooKeeperAccess.builder(connect, credential), tls)
        .retryPolicy(new ExponentialBackoffRetry(100, 3))
        .build();
  }
}
