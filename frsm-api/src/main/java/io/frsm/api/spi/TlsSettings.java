package io.frsm.api.spi;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The PEM files a client authenticates with (docs/OPERATIONS.md "Security").
 *
 * @param caBundle the CAs whose node certificates the client trusts
 * @param certificateChain the client's certificate (naming {@code
 *     frsm://client/<name>?cluster=<cluster id>&roles=...}), then any intermediates
 * @param privateKey the client's key, unencrypted PKCS#8
 */
public record TlsSettings(Path caBundle, Path certificateChain, Path privateKey) {
  public TlsSettings {
    Objects.requireNonNull(caBundle, "caBundle");
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
  }
}
