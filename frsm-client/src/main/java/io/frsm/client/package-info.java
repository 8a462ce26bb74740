/**
 * Internal: the frsm client implementation behind {@code io.frsm.api.FrsmClient.builder()
 * .seeds(...)}: the seed-based client ({@link io.frsm.client.SeedClient}), its control connection
 * and routing view, session ordering per key ({@link io.frsm.client.KeySessions}) and redirects.
 * Applications program against {@code io.frsm.api} and get this implementation through {@link
 * java.util.ServiceLoader} ({@link io.frsm.client.SeedClientProvider}); the classes here are public
 * for frsm's own modules (the node's embedded client shares the session ordering) and tests, may
 * change in any release, and are left out of the published javadoc.
 */
package io.frsm.client;
