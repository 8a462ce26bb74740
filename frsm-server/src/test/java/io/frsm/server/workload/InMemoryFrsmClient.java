package io.frsm.server.workload;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.KeyExistsException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.nio.ByteBuffer;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** A linearizable single-process stand-in for a cluster: one lock per key. For tests only. */
final class InMemoryFrsmClient implements FrsmClient {
  private final ConcurrentHashMap<ByteBuffer, Versioned> data = new ConcurrentHashMap<>();
  private final AtomicLong epochs = new AtomicLong();

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return CompletableFuture.completedFuture(Optional.ofNullable(data.get(ByteBuffer.wrap(key))));
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    Version v = new Version(epochs.incrementAndGet(), 0);
    Versioned previous = data.putIfAbsent(ByteBuffer.wrap(key.clone()), new Versioned(value, v));
    return previous == null
        ? CompletableFuture.completedFuture(v)
        : CompletableFuture.failedFuture(new KeyExistsException(previous));
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    Version next = expected.next();
    Versioned[] seen = new Versioned[1];
    data.computeIfPresent(
        ByteBuffer.wrap(key),
        (k, cur) -> {
          seen[0] = cur;
          return cur.version().equals(expected) ? new Versioned(newValue, next) : cur;
        });
    if (seen[0] != null && seen[0].version().equals(expected)) {
      return CompletableFuture.completedFuture(next);
    }
    return CompletableFuture.failedFuture(
        new CasMismatchException(expected, Optional.ofNullable(seen[0])));
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    boolean removed =
        data.computeIfPresent(
                ByteBuffer.wrap(key), (k, cur) -> cur.version().equals(expected) ? null : cur)
            == null;
    return removed
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.failedFuture(
            new CasMismatchException(
                expected, Optional.ofNullable(data.get(ByteBuffer.wrap(key)))));
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    Versioned v =
        data.computeIfPresent(
            ByteBuffer.wrap(key), (k, cur) -> new Versioned(cur.value(), cur.version().next()));
    return CompletableFuture.completedFuture(Optional.ofNullable(v));
  }

  @Override
  public void close() {}
}
