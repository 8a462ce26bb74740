package io.frsm.client;

import io.frsm.client.transport.Backoff;
import io.frsm.client.transport.ClientProtocolClient;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.TransportConfig;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A client's control connection: one topology watch (docs/formats/wire.md "Topology") kept open on
 * some node, as the Cassandra driver keeps one control connection. It starts at a seed; when the
 * watch ends (the node died, closed the connection, refused or never answered the watch) it moves
 * to the next candidate after a back-off — the live members of the last view first, then the seeds,
 * in turn — so any one live node is enough.
 *
 * <p>Every view heard goes to the listener in the order the current node sent it; a view from a
 * node the client already left is dropped. Thread-safe: watch callbacks arrive on event loops, the
 * state they change is guarded by this object's monitor, and the listener runs outside it.
 */
final class ControlConnection implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ControlConnection.class);

  private final List<InetSocketAddress> seeds;
  private final TransportConfig config;
  private final TransportEventLoops loops;
  private final ChannelSecurity security;
  private final Duration answerTimeout;
  private final Consumer<TopologySnapshot> listener;
  private final Backoff backoff;
  private final CompletableFuture<TopologySnapshot> firstView = new CompletableFuture<>();

  // Guarded by this.
  private ClientProtocolClient current;
  private TopologySnapshot lastView;
  private long attempts;
  private boolean closed;
  private String lastLoss = "";

  /**
   * @param security how the watch's connection is secured: the client's own (the same mutual TLS as
   *     its operations, so a node answers a watch only to a client it verified)
   * @param answerTimeout how long a node may take to send its first view before the client moves on
   * @param listener hears every view from the current node, in order; must not block
   */
  ControlConnection(
      List<InetSocketAddress> seeds,
      TransportConfig config,
      TransportEventLoops loops,
      ChannelSecurity security,
      Duration answerTimeout,
      Consumer<TopologySnapshot> listener) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException("a control connection needs at least one seed");
    }
    this.seeds = List.copyOf(seeds);
    this.config = config;
    this.loops = loops;
    this.security = Objects.requireNonNull(security, "security");
    this.answerTimeout = answerTimeout;
    this.listener = listener;
    this.backoff =
        new Backoff(
            config.reconnectBackoffMin().toMillis(), config.reconnectBackoffMax().toMillis());
  }

  /** Dials the first seed. */
  void start() {
    watchNext();
  }

  /** Completes with the first view any node sent; never fails (the caller bounds its wait). */
  CompletableFuture<TopologySnapshot> firstView() {
    return firstView;
  }

  /** The node the watch is on (or being dialled), or null while waiting to move on. */
  synchronized InetSocketAddress node() {
    return current == null ? null : current.server();
  }

  private void watchNext() {
    ClientProtocolClient dialled;
    Watch watch;
    synchronized (this) {
      if (closed) {
        return;
      }
      List<InetSocketAddress> candidates = candidates();
      InetSocketAddress target = candidates.get((int) (attempts++ % candidates.size()));
      try {
        dialled = ClientProtocolClient.connect(target, config, loops, security);
      } catch (RuntimeException e) { // the loops are closing
        LOG.debug("control connection cannot dial {}: {}", target, e.toString());
        return;
      }
      current = dialled;
      watch = new Watch(dialled);
    }
    if (!dialled.watchTopology(watch)) {
      watch.lost("the watch could not be queued");
      return;
    }
    loops
        .group()
        .next()
        .schedule(watch::checkAnswered, answerTimeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** The live members of the last view, then the seeds; no address twice. REQUIRES: the lock. */
  private List<InetSocketAddress> candidates() {
    LinkedHashSet<InetSocketAddress> order = new LinkedHashSet<>();
    if (lastView != null) {
      for (TopologySnapshot.Member m : lastView.members()) {
        if (m.live()) {
          order.add(new InetSocketAddress(m.host(), m.clientPort()));
        }
      }
    }
    order.addAll(seeds);
    return new ArrayList<>(order);
  }

  /** Ends the watch; no view is heard from now on. */
  @Override
  public void close() {
    ClientProtocolClient c;
    synchronized (this) {
      closed = true;
      c = current;
      current = null;
    }
    if (c != null) {
      c.close();
    }
  }

  /** The watch on one connection. */
  /**
   * Why the last watch ended ({@code host:port: reason}), or empty: a refused TLS handshake or role
   * shows here, for the error of a client that could not connect.
   */
  synchronized String lastLoss() {
    return lastLoss;
  }

  private final class Watch implements ClientProtocolClient.TopologyListener {
    private final ClientProtocolClient client;
    private volatile boolean answered;

    Watch(ClientProtocolClient client) {
      this.client = client;
    }

    @Override
    public void updated(TopologySnapshot topology) {
      synchronized (ControlConnection.this) {
        if (current != client) {
          return; // a late view from a node the client left
        }
        answered = true;
        lastView = topology;
        backoff.reset();
      }
      listener.accept(topology);
      firstView.complete(topology);
    }

    @Override
    public void lost(String reason) {
      long delayMillis;
      synchronized (ControlConnection.this) {
        if (current != client || closed) {
          return;
        }
        current = null;
        lastLoss = client.server() + ": " + reason;
        delayMillis = backoff.nextDelayMillis();
      }
      LOG.debug(
          "control connection to {} lost ({}); moving on in {} ms",
          client.server(),
          reason,
          delayMillis);
      client.close();
      try {
        loops
            .group()
            .next()
            .schedule(ControlConnection.this::watchNext, delayMillis, TimeUnit.MILLISECONDS);
      } catch (RuntimeException e) {
        // The loops are closing with the client.
      }
    }

    /** A node that took the connection but sent no view in time is left for the next one. */
    void checkAnswered() {
      if (!answered) {
        lost("no topology within " + answerTimeout.toMillis() + " ms");
      }
    }
  }
}
