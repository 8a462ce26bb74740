package io.frsm.server.cli;

import io.frsm.server.zk.ZooKeeperAccess;
import io.frsm.server.zk.ZooKeeperCredential;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.retry.ExponentialBackoffRetry;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The ZooKeeper client of a command given {@code --zookeeper} and {@code --zookeeper-credential}
 * ({@code frsm cli}, {@code frsm admin}): authenticated with the credential file when one is given,
 * since frsm's znodes are closed to anonymous sessions.
 */
final class ZooKeeperConnect {
  private ZooKeeperConnect() {}

  /**
   * A new, unstarted client of {@code connect}; the caller starts and closes it.
   *
   * @throws ParameterException if the credential file cannot be read (a usage error, exit 2)
   */
  static CuratorFramework client(CommandSpec spec, String connect, Path credentialFile) {
    ZooKeeperCredential credential;
    try {
      credential = credentialFile == null ? null : ZooKeeperCredential.read(credentialFile);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    return ZooKeeperAccess.builder(connect, credential)
        .retryPolicy(new ExponentialBackoffRetry(100, 3))
        .build();
  }
}
