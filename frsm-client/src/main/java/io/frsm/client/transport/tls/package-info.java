/**
 * Internal: mutual TLS 1.3 and certificate identities for every frsm connection, client and node
 * alike (docs/OPERATIONS.md "Security", docs/formats/wire.md "TLS and certificate identity"). It
 * lives in frsm-client because the seed client secures its own connections with it and frsm's
 * transport depends on frsm-client, not the reverse. Public only so that frsm's own modules can
 * share it: not an API, and left out of the published javadoc. Applications choose TLS with {@code
 * FrsmClientBuilder.tls(...)} or {@code insecure()}.
 */
package io.frsm.client.transport.tls;
