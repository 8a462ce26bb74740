package io.frsm.server.node;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on loopback in front of ZooKeeper, one per node, so a test can cut a single node off
 * from ZooKeeper without root rights (issue 27's fault layer): while {@link #blackhole}d, bytes in
 * either direction are held, not forwarded and not dropped — as a network that delivers nothing —
 * and connections are neither refused nor closed; the client notices only by its own timeouts.
 * {@link #restore} lets held bytes through. Connections the client closes (it gives up on a silent
 * server and dials again) are closed upstream too.
 *
 * <p>Threads: an acceptor, and two pumps per connection; all daemons, stopped by {@link #close}.
 */
public final class ZooKeeperProxy implements AutoCloseable {
  private final ServerSocket listener;
  private final InetSocketAddress upstream;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean blackholed;
  private volatile boolean closed;

  public ZooKeeperProxy(int upstreamPort) throws IOException {
    this.upstream = new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort);
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "zk-proxy-accept-" + listener.getLocalPort());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** What the node dials instead of ZooKeeper. */
  public String connectString() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** From now on nothing passes, either way, until {@link #restore}. */
  public void blackhole() {
    blackholed = true;
  }

  public void restore() {
    blackholed = false;
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        // A blackholed network does not connect either: the upstream is dialled once it passes.
        awaitPassing();
        if (closed) {
          client.close();
          return;
        }
        Socket server = new Socket();
        sockets.add(server);
        try {
          server.connect(upstream, 5_000);
        } catch (IOException refused) {
          // The upstream is down (a ZooKeeper restart): as a refused connection, not a silent one,
          // so the client dials again at once instead of after its read timeout.
          closeQuietly(client);
          closeQuietly(server);
          sockets.remove(client);
          sockets.remove(server);
          continue;
        }
        pump(client, server, "up");
        pump(server, client, "down");
      } catch (IOException e) {
        // The proxy closed.
      }
    }
  }

  private void pump(Socket from, Socket to, String direction) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[8192];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  awaitPassing();
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // One side closed: close the other below.
              } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
              }
            },
            "zk-proxy-" + direction + "-" + listener.getLocalPort());
    t.setDaemon(true);
    t.start();
  }

  /** Holds the caller while blackholed (a short park per check: this is the fault, not a wait). */
  private void awaitPassing() {
    while (blackholed && !closed) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
    sockets.forEach(ZooKeeperProxy::closeQuietly);
  }
}
