package io.frsm.client;

import io.frsm.api.spi.ClientSettings;
import io.frsm.api.spi.TlsSettings;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.client.transport.tls.MutualTls;
import io.frsm.client.transport.tls.TlsContexts;
import io.frsm.client.transport.tls.TlsFiles;
import io.frsm.client.transport.tls.TlsProviders;
import java.time.Duration;

/**
 * A seed client's connections, its control connection included: mutual TLS with the files its user
 * named, through the JDK's TLS provider unless OpenSSL is on the class path and loads ({@link
 * TlsProviders}), or plaintext when the user chose {@code insecure()} (docs/OPERATIONS.md
 * "Security").
 */
final class ClientSecurity {
  /** How often a new connection may look for changed TLS files. */
  static final Duration RELOAD_CHECK_INTERVAL = Duration.ofSeconds(10);

  static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

  private ClientSecurity() {}

  /**
   * @throws IllegalArgumentException if a file cannot be read or used, or the certificate is not of
   *     the cluster
   */
  static ChannelSecurity of(ClientSettings settings) {
    TlsSettings tls = settings.tls();
    if (tls == null) {
      return ChannelSecurity.plaintext();
    }
    TlsContexts contexts =
        TlsContexts.load(
            new TlsFiles(tls.caBundle(), tls.certificateChain(), tls.privateKey()),
            TlsProviders.preferred(),
            RELOAD_CHECK_INTERVAL);
    return new MutualTls(contexts, settings.clusterId(), HANDSHAKE_TIMEOUT);
  }
}
