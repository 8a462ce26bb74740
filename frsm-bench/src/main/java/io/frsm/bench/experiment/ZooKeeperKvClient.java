package io.frsm.bench.experiment;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmClient;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The paper's workload on ZooKeeper: a key is the znode {@code /kv/<key>}; get is {@code getData};
 * CAS is {@code setData} with the expected znode version; create is {@code create}. A key's
 * operations always use the same session (sessions spread over the servers), which keeps them in
 * the order issued.
 *
 * <p>A version maps to {@code (czxid, dataVersion)}. The workload never deletes, so the data
 * version alone decides a CAS (ZooKeeper cannot check czxid in a setData). Gets read the session's
 * server without a sync (ZooKeeper's ordinary, sequentially consistent read, which is cheaper than
 * frsm's linearizable one) unless {@code linearizableReads} is set.
 */
final class ZooKeeperKvClient implements FrsmClient {
  static final String ROOT = "/kv";
  private static final int SESSION_TIMEOUT_MILLIS = 30_000;
  private static final long CONNECT_TIMEOUT_SECONDS = 30;

  private final List<ZooKeeper> sessions;
  private final boolean linearizableReads;

  private ZooKeeperKvClient(List<ZooKeeper> sessions, boolean linearizableReads) {
    this.sessions = sessions;
    this.linearizableReads = linearizableReads;
  }

  static ZooKeeperKvClient connect(
      List<String> servers, int sessionCount, boolean linearizableReads) {
    List<ZooKeeper> sessions = new ArrayList<>();
    try {
      for (int i = 0; i < sessionCount; i++) {
        CountDownLatch connected = new CountDownLatch(1);
        Watcher watcher =
            event -> {
              if (event.getState() == Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
              }
            };
        ZooKeeper zk =
            new ZooKeeper(servers.get(i % servers.size()), SESSION_TIMEOUT_MILLIS, watcher);
        sessions.add(zk);
        if (!connected.await(CONNECT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
          throw new IllegalStateException(
              "no ZooKeeper session to " + servers.get(i % servers.size()));
        }
      }
      try {
        sessions
            .get(0)
            .create(ROOT, new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.PERSISTENT);
      } catch (KeeperException.NodeExistsException alreadyThere) {
        // Another client created it.
      }
      return new ZooKeeperKvClient(sessions, linearizableReads);
    } catch (IOException | KeeperException e) {
      closeAll(sessions);
      throw new IllegalStateException("cannot connect to ZooKeeper " + servers, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeAll(sessions);
      throw new IllegalStateException("interrupted while connecting to ZooKeeper", e);
    }
  }

  /** {@code /kv/<key>}: the key itself when it is a safe znode name, else its hex. */
  static String path(byte[] key) {
    boolean plain = key.length > 0;
    for (byte b : key) {
      boolean safe =
          (b >= 'a' && b <= 'z')
              || (b >= 'A' && b <= 'Z')
              || (b >= '0' && b <= '9')
              || b == '-'
              || b == '_';
      plain &= safe;
    }
    return ROOT
        + "/"
        + (plain
            ? new String(key, StandardCharsets.US_ASCII)
            : "x" + HexFormat.of().formatHex(key));
  }

  private ZooKeeper session(byte[] key) {
    return sessions.get(Math.floorMod(Arrays.hashCode(key), sessions.size()));
  }

  private static Version version(Stat stat) {
    return new Version(stat.getCzxid(), stat.getVersion());
  }

  @Override
  public CompletableFuture<Optional<Versioned>> getAsync(byte[] key) {
    ZooKeeper zk = session(key);
    String path = path(key);
    CompletableFuture<Optional<Versioned>> f = new CompletableFuture<>();
    Runnable read =
        () ->
            zk.getData(
                path,
                false,
                (rc, p, ctx, data, stat) -> {
                  KeeperException.Code code = KeeperException.Code.get(rc);
                  if (code == KeeperException.Code.OK) {
                    f.complete(Optional.of(new Versioned(data, version(stat))));
                  } else if (code == KeeperException.Code.NONODE) {
                    f.complete(Optional.empty());
                  } else {
                    f.completeExceptionally(failure(code, path, false));
                  }
                },
                null);
    if (linearizableReads) {
      zk.sync(
          path,
          (rc, p, ctx) -> {
            KeeperException.Code code = KeeperException.Code.get(rc);
            if (code == KeeperException.Code.OK) {
              read.run();
            } else {
              f.completeExceptionally(failure(code, path, false));
            }
          },
          null);
    } else {
      read.run();
    }
    return f;
  }

  @Override
  public CompletableFuture<Version> createAsync(byte[] key, byte[] value) {
    ZooKeeper zk = session(key);
    String path = path(key);
    CompletableFuture<Version> f = new CompletableFuture<>();
    zk.create(
        path,
        value,
        ZooDefs.Ids.OPEN_ACL_UNSAFE,
        CreateMode.PERSISTENT,
        (rc, p, ctx, name, stat) -> {
          KeeperException.Code code = KeeperException.Code.get(rc);
          if (code == KeeperException.Code.OK) {
            f.complete(version(stat));
          } else if (code == KeeperException.Code.NODEEXISTS) {
            // The API wants the current value; one more read is what a ZooKeeper client would do.
            getAsync(key)
                .whenComplete(
                    (current, err) ->
                        f.completeExceptionally(
                            current != null && current.isPresent()
                                ? new KeyExistsException(current.get())
                                : new FrsmException(path + " exists but could not be read")));
          } else {
            f.completeExceptionally(failure(code, path, true));
          }
        },
        null);
    return f;
  }

  @Override
  public CompletableFuture<Version> casAsync(byte[] key, Version expected, byte[] newValue) {
    ZooKeeper zk = session(key);
    String path = path(key);
    CompletableFuture<Version> f = new CompletableFuture<>();
    zk.setData(
        path,
        newValue,
        (int) expected.timestamp(),
        (rc, p, ctx, stat) -> completeConditionalWrite(f, rc, path, expected, () -> version(stat)),
        null);
    return f;
  }

  @Override
  public CompletableFuture<Void> deleteAsync(byte[] key, Version expected) {
    ZooKeeper zk = session(key);
    String path = path(key);
    CompletableFuture<Void> f = new CompletableFuture<>();
    zk.delete(
        path,
        (int) expected.timestamp(),
        (rc, p, ctx) -> completeConditionalWrite(f, rc, path, expected, () -> null),
        null);
    return f;
  }

  /**
   * Reads after a sync, then rewrites the same value at the version read (retrying if a CAS got in
   * between): afterwards no write expecting an older version can succeed.
   */
  @Override
  public CompletableFuture<Optional<Versioned>> fenceAsync(byte[] key) {
    ZooKeeper zk = session(key);
    String path = path(key);
    CompletableFuture<Optional<Versioned>> f = new CompletableFuture<>();
    zk.sync(
        path,
        (rc, p, ctx) -> {
          KeeperException.Code code = KeeperException.Code.get(rc);
          if (code != KeeperException.Code.OK) {
            f.completeExceptionally(failure(code, path, false));
            return;
          }
          getAsync(key)
              .thenCompose(
                  current -> {
                    if (current.isEmpty()) {
                      return CompletableFuture.completedFuture(current);
                    }
                    Versioned v = current.get();
                    return casAsync(key, v.version(), v.value())
                        .thenApply(next -> Optional.of(new Versioned(v.value(), next)));
                  })
              .whenComplete(
                  (result, err) -> {
                    if (err == null) {
                      f.complete(result);
                    } else if (unwrap(err) instanceof CasMismatchException) {
                      fenceAsync(key).whenComplete((r, e2) -> complete(f, r, e2));
                    } else {
                      f.completeExceptionally(unwrap(err));
                    }
                  });
        },
        null);
    return f;
  }

  private static <T> void complete(CompletableFuture<T> f, T value, Throwable err) {
    if (err == null) {
      f.complete(value);
    } else {
      f.completeExceptionally(unwrap(err));
    }
  }

  private static Throwable unwrap(Throwable t) {
    return t instanceof java.util.concurrent.CompletionException && t.getCause() != null
        ? t.getCause()
        : t;
  }

  /** A lost connection leaves a write's outcome unknown; a read can simply be retried. */
  /**
   * Completes a write conditional on {@code expected} (a setData or delete at a znode version):
   * with {@code ok} on success; a CAS mismatch when the version moved or the node is gone (the
   * API's current value is not known here); else the failure.
   */
  private static <T> void completeConditionalWrite(
      CompletableFuture<T> f, int rc, String path, Version expected, Supplier<T> ok) {
    KeeperException.Code code = KeeperException.Code.get(rc);
    if (code == KeeperException.Code.OK) {
      f.complete(ok.get());
    } else if (code == KeeperException.Code.BADVERSION || code == KeeperException.Code.NONODE) {
      f.completeExceptionally(new CasMismatchException(expected, Optional.empty()));
    } else {
      f.completeExceptionally(failure(code, path, true));
    }
  }

  private static FrsmException failure(KeeperException.Code code, String path, boolean write) {
    KeeperException cause = KeeperException.create(code, path);
    boolean connection =
        code == KeeperException.Code.CONNECTIONLOSS
            || code == KeeperException.Code.SESSIONEXPIRED
            || code == KeeperException.Code.OPERATIONTIMEOUT;
    if (connection && write) {
      return new OutcomeUnknownException("ZooKeeper " + code + " on " + path, cause);
    }
    if (connection) {
      return new NotExecutedException("ZooKeeper " + code + " on " + path, cause);
    }
    return new FrsmException("ZooKeeper " + code + " on " + path, cause);
  }

  @Override
  public void close() {
    closeAll(sessions);
  }

  private static void closeAll(List<ZooKeeper> sessions) {
    for (ZooKeeper zk : sessions) {
      try {
        zk.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
