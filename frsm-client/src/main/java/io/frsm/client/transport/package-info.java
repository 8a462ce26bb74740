/**
 * Internal: the client protocol's wire plumbing (codec, framing, connections, event loops, the
 * topology message), public only so that frsm's own modules (the node's transport) can share it.
 * Not an API: anything here may change or go in any release without notice. Applications use {@code
 * io.frsm.api} ({@code FrsmClient.builder()}) only; this package is left out of the published
 * javadoc.
 */
package io.frsm.client.transport;
