package io.frsm.server.config;

import io.frsm.server.zk.ZooKeeperTls;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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

  public static final ConfigKey<Path> TLS_TRUST_STORE =
      ConfigKey.of("zookeeper.tls.trustStore", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .check(ZooKeeperKeys::storeFile)
          .option("zookeeperTls")
          .doc(
              "the certificates of the CAs whose ZooKeeper server certificates the node trusts"
                  + " (.pem, .jks, .p12 or .pfx); set: the node speaks TLS to ZooKeeper, and"
                  + " zookeeper.connect must name the ensemble's secure client ports");

  public static final ConfigKey<Path> TLS_TRUST_STORE_PASSWORD_FILE =
      ConfigKey.of("zookeeper.tls.trustStorePasswordFile", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("zookeeperTls")
          .doc("file holding the trust store's password (a .jks, .p12 or .pfx store)");

  public static final ConfigKey<Path> TLS_KEY_STORE =
      ConfigKey.of("zookeeper.tls.keyStore", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .check(ZooKeeperKeys::storeFile)
          .option("zookeeperTls")
          .doc(
              "the node's private key and certificate chain it shows ZooKeeper (.pem with both, or"
                  + " .jks, .p12, .pfx); ZooKeeper's secure port asks for one by default");

  public static final ConfigKey<Path> TLS_KEY_STORE_PASSWORD_FILE =
      ConfigKey.of("zookeeper.tls.keyStorePasswordFile", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("zookeeperTls")
          .doc("file holding the key store's password (or the PEM key's, if encrypted)");

  public static final ConfigKey<Boolean> TLS_HOSTNAME_VERIFICATION =
      ConfigKey.of("zookeeper.tls.hostnameVerification", ValueType.BOOLEAN, true)
          .option("zookeeperTls")
          .doc(
              "whether a ZooKeeper server's certificate must name the host the node dialed (a DNS"
                  + " or IP subject alternative name); false trusts any certificate of the CAs");

  static final List<ConfigKey<?>> ALL =
      List.of(
          CONNECT,
          SESSION_TIMEOUT,
          CREDENTIAL_FILE,
          READER_CREDENTIAL_FILE,
          TLS_TRUST_STORE,
          TLS_TRUST_STORE_PASSWORD_FILE,
          TLS_KEY_STORE,
          TLS_KEY_STORE_PASSWORD_FILE,
          TLS_HOSTNAME_VERIFICATION);

  /** The TLS keys besides the trust store: each needs it. */
  static final List<ConfigKey<?>> TLS_NEEDING_TRUST_STORE =
      List.of(TLS_TRUST_STORE_PASSWORD_FILE, TLS_KEY_STORE, TLS_KEY_STORE_PASSWORD_FILE);

  /** The TLS settings of {@code config}; null when it has no trust store: plaintext. */
  public static ZooKeeperTls tls(FrsmConfig config) {
    Path trustStore = config.get(TLS_TRUST_STORE);
    return trustStore == null
        ? null
        : new ZooKeeperTls(
            trustStore,
            config.get(TLS_TRUST_STORE_PASSWORD_FILE),
            config.get(TLS_KEY_STORE),
            config.get(TLS_KEY_STORE_PASSWORD_FILE),
            config.get(TLS_HOSTNAME_VERIFICATION));
  }

  /**
   * The TLS settings that the {@code FRSM_ZOOKEEPER_TLS_*} variables of {@code environment} give a
   * command with no config file ({@code frsm cli}, {@code frsm admin}): the same names and checks
   * as a node's keys. Null when no trust store is named: plaintext.
   *
   * @throws ConfigException naming the variable's key if a value is malformed, or one is set that
   *     needs another
   */
  public static ZooKeeperTls tlsFromEnvironment(Map<String, String> environment) {
    Map<ConfigKey<?>, Object> values = new java.util.HashMap<>();
    for (ConfigKey<?> key : List.of(TLS_TRUST_STORE, TLS_HOSTNAME_VERIFICATION)) {
      putFromEnvironment(values, key, environment);
    }
    for (ConfigKey<?> key : TLS_NEEDING_TRUST_STORE) {
      putFromEnvironment(values, key, environment);
    }
    Path trustStore = (Path) values.get(TLS_TRUST_STORE);
    if (trustStore == null) {
      for (ConfigKey<?> key : TLS_NEEDING_TRUST_STORE) {
        if (values.get(key) != null) {
          throw new ConfigException(
              key.environmentVariable()
                  + " needs "
                  + TLS_TRUST_STORE.environmentVariable()
                  + ": without it the connection to ZooKeeper is plaintext");
        }
      }
      return null;
    }
    if (values.get(TLS_KEY_STORE_PASSWORD_FILE) != null && values.get(TLS_KEY_STORE) == null) {
      throw new ConfigException(
          TLS_KEY_STORE_PASSWORD_FILE.environmentVariable()
              + " needs "
              + TLS_KEY_STORE.environmentVariable());
    }
    Object verify = values.get(TLS_HOSTNAME_VERIFICATION);
    return new ZooKeeperTls(
        trustStore,
        (Path) values.get(TLS_TRUST_STORE_PASSWORD_FILE),
        (Path) values.get(TLS_KEY_STORE),
        (Path) values.get(TLS_KEY_STORE_PASSWORD_FILE),
        verify == null ? TLS_HOSTNAME_VERIFICATION.defaultValue() : (Boolean) verify);
  }

  private static <T> void putFromEnvironment(
      Map<ConfigKey<?>, Object> values, ConfigKey<T> key, Map<String, String> environment) {
    String raw = environment.get(key.environmentVariable());
    if (raw != null) {
      T value = key.parse(raw);
      key.checkValue(value);
      values.put(key, value);
    }
  }

  /** The store formats ZooKeeper's client reads, by the file name's extension. */
  public static final List<String> STORE_EXTENSIONS = List.of(".pem", ".jks", ".p12", ".pfx");

  /**
   * ZooKeeper picks a store's format by its file name's extension; any other file would fail only
   * when the node first dials ZooKeeper, with a less clear error.
   */
  private static void storeFile(Path file) {
    Path name = file.getFileName();
    String lower = name == null ? "" : name.toString().toLowerCase(java.util.Locale.ROOT);
    if (STORE_EXTENSIONS.stream().noneMatch(lower::endsWith)) {
      throw new IllegalArgumentException(
          "must name a file ending in one of "
              + STORE_EXTENSIONS
              + " (ZooKeeper reads the format"
              + " from the extension), was "
              + file);
    }
  }
}
