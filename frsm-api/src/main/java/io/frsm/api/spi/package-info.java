/**
 * For client implementations, not applications: how {@link io.frsm.api.FrsmClientBuilder} finds and
 * configures one ({@link io.frsm.api.spi.ClientProvider}, {@link io.frsm.api.spi.ClientSettings}).
 */
package io.frsm.api.spi;
