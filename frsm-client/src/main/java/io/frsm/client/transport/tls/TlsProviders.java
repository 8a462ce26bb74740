package io.frsm.client.transport.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import java.lang.System.Logger.Level;
import java.util.Locale;

/**
 * Which TLS implementation the contexts use: OpenSSL (BoringSSL through netty-tcnative, bundled for
 * Linux x86-64) when it loads, the JDK's otherwise. The system property {@value #PROPERTY} ({@code
 * jdk} or {@code openssl}) forces one, for measurements and for working around a provider bug.
 */
public final class TlsProviders {
  private static final System.Logger LOG = System.getLogger(TlsProviders.class.getName());

  /** Forces a provider: {@code jdk} or {@code openssl}. */
  public static final String PROPERTY = "frsm.tls.provider";

  private TlsProviders() {}

  /**
   * The provider to use.
   *
   * @throws IllegalArgumentException if the property names an unknown provider, or OpenSSL when it
   *     does not load
   */
  public static SslProvider preferred() {
    String forced = System.getProperty(PROPERTY);
    if (forced != null) {
      switch (forced.trim().toLowerCase(Locale.ROOT)) {
        case "jdk":
          return SslProvider.JDK;
        case "openssl":
          if (!OpenSsl.isAvailable()) {
            throw new IllegalArgumentException(
                PROPERTY + "=openssl, but OpenSSL does not load: " + OpenSsl.unavailabilityCause());
          }
          return SslProvider.OPENSSL;
        default:
          throw new IllegalArgumentException(PROPERTY + " must be jdk or openssl, was " + forced);
      }
    }
    if (OpenSsl.isAvailable() && SslProvider.isTlsv13Supported(SslProvider.OPENSSL)) {
      return SslProvider.OPENSSL;
    }
    LOG.log(
        Level.INFO,
        "OpenSSL unavailable ({0}); TLS through the JDK",
        String.valueOf(OpenSsl.unavailabilityCause()));
    return SslProvider.JDK;
  }
}
