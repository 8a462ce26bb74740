/**
 * The frsm client API: {@link io.frsm.api.FrsmClient} (a linearizable key-value store in which
 * every key is its own replicated state machine), its builder, per-call {@link
 * io.frsm.api.ReadMode}s, {@link io.frsm.api.Version}ed values and the typed exceptions. Depends on
 * the JDK only; the implementation ({@code io.frsm:frsm-client}) is found with {@link
 * java.util.ServiceLoader}.
 */
package io.frsm.api;
