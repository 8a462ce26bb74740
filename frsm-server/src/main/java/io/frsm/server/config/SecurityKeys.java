package io.frsm.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * The keys of the {@code security} section: mutual TLS on the peer and client ports
 * (docs/OPERATIONS.md "Security"). A node either names its three PEM files or says {@code
 * security.insecure: true}; {@link ConfigRules} refuses anything in between, so no node runs
 * plaintext by omission.
 */
public final class SecurityKeys {
  private SecurityKeys() {}

  public static final ConfigKey<Boolean> INSECURE =
      ConfigKey.of("security.insecure", ValueType.BOOLEAN, false)
          .option("insecure")
          .doc(
              "true: plaintext, unauthenticated peer and client ports (anyone who reaches them can"
                  + " read and write every key); only with none of the TLS files set");

  public static final ConfigKey<Path> CA_BUNDLE =
      ConfigKey.of("security.caBundle", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("tls")
          .doc("PEM certificates of the CAs whose node and client certificates this node trusts");

  public static final ConfigKey<Path> CERTIFICATE_CHAIN =
      ConfigKey.of("security.certificateChain", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("tls")
          .doc(
              "PEM: this node's certificate (naming frsm://node/<id>?cluster=<id>), then any"
                  + " intermediates");

  public static final ConfigKey<Path> PRIVATE_KEY =
      ConfigKey.of("security.privateKey", ValueType.PATH, (Path) null)
          .derivedByDefault("(none)")
          .option("tls")
          .doc("PEM: this node's private key, unencrypted PKCS#8");

  public static final ConfigKey<Duration> RELOAD_CHECK_INTERVAL =
      ConfigKey.of("security.reloadCheckInterval", ValueType.DURATION, Duration.ofSeconds(10))
          .range(Duration.ZERO, Duration.ofHours(1))
          .option("tlsReloadCheckInterval")
          .doc("a new connection looks for changed TLS files at most this often");

  public static final ConfigKey<Duration> HANDSHAKE_TIMEOUT =
      ConfigKey.of("security.handshakeTimeout", ValueType.DURATION, Duration.ofSeconds(10))
          .range(Timings.ONE_MS, Duration.ofMinutes(5))
          .option("tlsHandshakeTimeout")
          .doc("a connection that has not completed its TLS handshake by then is closed");

  static final List<ConfigKey<?>> ALL =
      List.of(
          INSECURE,
          CA_BUNDLE,
          CERTIFICATE_CHAIN,
          PRIVATE_KEY,
          RELOAD_CHECK_INTERVAL,
          HANDSHAKE_TIMEOUT);

  /** The three files, in the order the rules name them. */
  static final List<ConfigKey<Path>> FILES = List.of(CA_BUNDLE, CERTIFICATE_CHAIN, PRIVATE_KEY);
}
