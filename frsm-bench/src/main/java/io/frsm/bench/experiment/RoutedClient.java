package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;
import io.frsm.api.NotExecutedException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * An in-process client that sends each operation to one node's embedded client: normally the key's
 * first live replica (its natural leader), and for {@code nonLeaderFraction} of the calls another
 * live replica, which then has to run a prepare phase for that key (and so does the leader on its
 * next call): how the multi-phase experiment makes a chosen share of operations cold.
 */
final class RoutedClient implements FrsmClient {
  private final List<FrsmClient> perNode;
  private final Function<byte[], int[]> replicaOrder;
  private final double nonLeaderFraction;

  /**
   * @param perNode the embedded client of each node by index (null for a node that is down)
   * @param replicaOrder a key's live replicas as node indexes, natural leader first
   */
  RoutedClient(
      List<FrsmClient> perNode, Function<byte[], int[]> replicaOrder, double nonLeaderFraction) {
    if (!(nonLeaderFraction >= 0 && nonLeaderFraction <= 1)) {
      throw new IllegalArgumentException("nonLeaderFraction must be in [0, 1]");
    }
    this.perNode = perNode;
    this.replicaOrder = replicaOrder;
    this.nonLeaderFraction = nonLeaderFraction;
  }

  private FrsmClient route(byte[] key) {
    int[] order = replicaOrder.apply(key);
    if (order.length == 0) {
      throw new NotExecutedException("no live replica of the key");
    }
    int pick = 0;
    ThreadLocalRandom random = ThreadLocalRandom.current();
    if (order.length > 1 && nonLeaderFraction > 0 && random.nextDouble() < nonLeaderFraction) {
      pick = 1 + random.nextInt(order.length - 1);
    }
    FrsmClient c = perNode.get(order[pick]);
    if (c == null) {
      throw new NotExecutedException("node " + (order[pick] + 1) + " has no client");
    }
    return c;
  }

  private <T> CompletableFuture<T> call(byte[] key, Function<FrsmClient, CompletableFuture<T>> op) {
    try {
      return op.apply(route(key));
    } catch (NotExecutedException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  // The sync calls go to the node client's own sync methods, which skip the hand-off to a callback
  // thread that an async result needs (the workload's clients block on every call).

  @Override
  public Optional<Versioned> get(byte[] key) {
    return route(key).get(key);
  }

  @Override
  public Version create(byte[] key, byte[] value) {
    return route(key).create(key, value);
  }

  @Override
  public Version cas(byte[] key, Version expected, byte[] newValue) {
    return route(key).cas(key, expected, newValue);
  }

  @Override
  public void delete(byte[] key, Version expected) {
    route(key).delete(key, expected);
  }

  @Override
  public Optional<Versioned> fence(byte[] key) {
    return route(key).fence(key);
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    return call(key, c -> c.getAsync(key));
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    return call(key, c -> c.createAsync(key, value));
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    return call(key, c -> c.casAsync(key, expected, newValue));
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    return call(key, c -> c.deleteAsync(key, expected));
  }

  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    return call(key, c -> c.fenceAsync(key));
  }

  @Override
  public void close() {
    for (FrsmClient c : perNode) {
      if (c != null) {
        c.close();
      }
    }
  }
}
