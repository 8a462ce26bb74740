package io.frsm.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The keys of the {@code zookeeper} section: the ensemble that holds membership and leases. */
public final class ZooKeeperKeys {
  private ZooKeeperKeys() {}

  public static final ConfigKey<String> CONNECT =
      ConfigKey.of("zookeeper.connect", ValueType.TEXT, null)
          .check(
              s -> {
                if (s.isBlank()) {
                  throw new IllegalArgumentException("must not be empty");
                }
              })
          .option("zookeeper")
          .doc("the ensemble's connect string");

  public static final ConfigKey<Duration> SESSION_TIMEOUT =
      ConfigKey.of("zookeeper.sessionTimeout", ValueType.DURATION, Duration.ofSeconds(10))
          .range(Timings.ONE_MS, Timings.MAX)
          .option("zookeeperSessionTimeout")
          .doc("membership and leases end this long after the node stops answering ZooKeeper");

  public static final ConfigKey<Path> CREDENTIAL_FILE =
      ConfigKey.of("zookeeper.credentialFile", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("zookeeperCredentialFile")
          .doc(
              "file of one line user:password: the node authenticates to ZooKeeper with it (digest)"
                  + " and every znode it creates grants access to that identity only; required"
                  + " unless security.insecure is true");

  public static final ConfigKey<Path> READER_CREDENTIAL_FILE =
      ConfigKey.of("zookeeper.readerCredentialFile", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("zookeeperReaderCredentialFile")
          .doc(
              "file of one line user:password of another identity the node's znodes grant read"
                  + " access to: what clients and the CLI give to find the cluster through"
                  + " ZooKeeper; only with zookeeper.credentialFile");

  static final List<ConfigKey<?>> ALL =
      List.of(CONNECT, SESSION_TIMEOUT, CREDENTIAL_FILE, READER_CREDENTIAL_FILE);
}
