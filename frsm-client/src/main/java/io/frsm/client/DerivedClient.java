package io.frsm.client;

import io.frsm.api.FrsmClient;
import io.frsm.api.ReadMode;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * A view of a {@link SessionClient} with other {@link CallOptions} ({@code withReadMode}, {@code
 * withTimeout}): every call goes through the root client, so the session ordering per key, the
 * connections and the threads are the root's, and a key's calls keep their issue order across the
 * root and all its views. Closing a view does nothing: the root owns everything. Thread-safe and
 * immutable.
 */
final class DerivedClient implements FrsmClient {
  private final SessionClient root;
  private final CallOptions options;

  /**
   * @throws UnsupportedOperationException if {@code root} cannot honour {@code options}
   */
  DerivedClient(SessionClient root, CallOptions options) {
    root.checkOptions(options);
    this.root = root;
    this.options = options;
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return root.getAsync(key, options);
  }

  @Override
  public Optional<Versioned> get(byte[] key) {
    return root.get(key, options);
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return root.createAsync(key, value, options);
  }

  @Override
  public Version create(byte[] key, byte[] value) {
    return root.create(key, value, options);
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    return root.casAsync(key, expected, newValue, options);
  }

  @Override
  public Version cas(byte[] key, Version expected, byte[] newValue) {
    return root.cas(key, expected, newValue, options);
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    return root.deleteAsync(key, expected, options);
  }

  @Override
  public void delete(byte[] key, Version expected) {
    root.delete(key, expected, options);
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return root.fenceAsync(key, options);
  }

  @Override
  public Optional<Versioned> fence(byte[] key) {
    return root.fence(key, options);
  }

  @Override
  public FrsmClient withReadMode(ReadMode mode) {
    return new DerivedClient(root, options.withReadMode(mode));
  }

  @Override
  public FrsmClient withTimeout(Duration timeout) {
    return new DerivedClient(root, options.withTimeout(timeout));
  }

  @Override
  public FrsmClient idempotent() {
    return new DerivedClient(root, options.asIdempotent());
  }

  /** Does nothing: the client this view came from owns the connections and threads. */
  @Override
  public void close() {}
}
