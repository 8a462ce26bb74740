package io.frsm.client.transport.tls;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The PEM files a node or client authenticates with (docs/OPERATIONS.md "Security"): read again
 * when they change ({@link TlsContexts}).
 *
 * @param caBundle the certificates of the CAs this side trusts (one or more, concatenated): a peer
 *     certificate must chain to one of them
 * @param certificateChain this side's certificate first, then any intermediates
 * @param privateKey this side's key, unencrypted PKCS#8 ({@code BEGIN PRIVATE KEY})
 */
public record TlsFiles(Path caBundle, Path certificateChain, Path privateKey) {
  public TlsFiles {
    Objects.requireNonNull(caBundle, "caBundle");
    Objects.requireNonNull(certificateChain, "certificateChain");
    Objects.requireNonNull(privateKey, "privateKey");
  }
}
