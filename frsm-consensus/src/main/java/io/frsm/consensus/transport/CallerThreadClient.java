package io.frsm.consensus.transport;

import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client protocol for a thread that waits for its answer anyway: the calling thread borrows a
 * connection of its own to the node, writes its request, reads the response and returns the
 * connection. {@link ClientProtocolClient} multiplexes every call over one connection owned by an
 * event loop, which costs each call two thread hand-offs — the caller to the loop, and the loop
 * back to the waiting caller — each a wake-up and a context switch; here the kernel wakes the
 * caller when its response arrives, and nothing else runs.
 *
 * <p>The price is one connection per concurrent caller: at most {@code maxConnections} to the node,
 * of which at most {@code maxIdle} stay open between calls (most recently used first, so a quiet
 * period lets the rest close). When all are in use, {@link #callIfConnectionFree} returns {@code
 * null} and the caller uses the multiplexed client instead.
 *
 * <p>Failures are typed as in {@link ClientProtocolClient}. An idle connection is checked before
 * reuse ({@link CallerThreadConnection#usable}): one the node closed is dropped, and the request
 * goes out on another or a new one, so a node restart does not turn the next mutation into an
 * unknown outcome.
 *
 * <p>Thread-safe.
 */
public final class CallerThreadClient implements AutoCloseable {
  private final InetSocketAddress server;
  private final ClientCodec codec;
  private final int maxFrameBytes;
  private final int maxConnections;
  private final int maxIdle;
  private final ConcurrentLinkedDeque<CallerThreadConnection> idle = new ConcurrentLinkedDeque<>();
  private final Set<CallerThreadConnection> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger openCount = new AtomicInteger();
  private volatile boolean closed;

  /**
   * @param maxConnections connections to the node at most, in use or idle
   * @param maxIdle connections kept open between calls at most
   */
  public CallerThreadClient(
      InetSocketAddress server, TransportConfig config, int maxConnections, int maxIdle) {
    if (maxConnections < 1) {
      throw new IllegalArgumentException("maxConnections must be >= 1, was " + maxConnections);
    }
    if (maxIdle < 0 || maxIdle > maxConnections) {
      throw new IllegalArgumentException(
          "maxIdle must be in [0, maxConnections=" + maxConnections + "], was " + maxIdle);
    }
    this.server = server;
    this.codec = new ClientCodec(config.clusterId(), ClientCodec.Side.CLIENT);
    this.maxFrameBytes = config.maxFrameBytes();
    this.maxConnections = maxConnections;
    this.maxIdle = maxIdle;
  }

  public InetSocketAddress server() {
    return server;
  }

  /**
   * Runs {@code request} on the calling thread and returns the node's response; {@code null} if all
   * {@code maxConnections} connections are in use (nothing was sent).
   *
   * @throws NotExecutedException the request was not executed: never sent (the node is unreachable,
   *     the request is over the frame limit, the client is closed), or a get whose response was
   *     lost
   * @throws OutcomeUnknownException a mutation was sent and its response lost (timeout, connection
   *     dropped, garbled frame): resolve with a fence
   */
  public OperationResponse callIfConnectionFree(OperationRequest request, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    CallerThreadConnection connection = borrow(deadline);
    if (connection == null) {
      return null;
    }
    try {
      OperationResponse response = connection.call(request, deadline, timeout);
      release(connection);
      return response;
    } catch (NotExecutedException | OutcomeUnknownException e) {
      release(connection); // closed by the failure unless it stayed usable (oversized request)
      throw e;
    } catch (RuntimeException | Error e) {
      connection.close();
      release(connection);
      throw e;
    }
  }

  /** Connections open now, in use or idle. */
  public int openConnections() {
    return openCount.get();
  }

  /** Connections open and waiting for a call. */
  public int idleConnections() {
    return idle.size();
  }

  /**
   * For tests, while no call runs: checks every idle connection as borrowing checks the one it
   * takes, and returns how many the node closed. They stay queued, closed, until borrowing drops
   * them.
   */
  int idleClosedByNode() {
    int closedByNode = 0;
    for (CallerThreadConnection c : idle) {
      if (!c.usable()) {
        closedByNode++;
      }
    }
    return closedByNode;
  }

  /** An idle connection that is still usable, or a new one; null at the limit. */
  private CallerThreadConnection borrow(long deadline) {
    if (closed) {
      throw new NotExecutedException("client closed");
    }
    CallerThreadConnection c;
    while ((c = idle.pollFirst()) != null) {
      if (c.usable()) {
        return c;
      }
      forget(c);
    }
    if (openCount.incrementAndGet() > maxConnections) {
      openCount.decrementAndGet();
      return null;
    }
    try {
      c = CallerThreadConnection.dial(server, codec, maxFrameBytes, deadline);
    } catch (RuntimeException e) {
      openCount.decrementAndGet();
      throw e;
    }
    open.add(c);
    if (closed) { // close() may have missed it: it must not outlive the client
      c.close();
      forget(c);
      throw new NotExecutedException("client closed");
    }
    return c;
  }

  private void release(CallerThreadConnection c) {
    if (!c.isOpen()) {
      forget(c);
      return;
    }
    if (closed || idle.size() >= maxIdle) {
      c.close();
      forget(c);
      return;
    }
    idle.offerFirst(c);
    if (closed && idle.remove(c)) { // raced with close(): it may have drained before the offer
      c.close();
      forget(c);
    }
  }

  private void forget(CallerThreadConnection c) {
    if (open.remove(c)) {
      openCount.decrementAndGet();
    }
  }

  /**
   * Closes every connection. A call in progress fails as lost (a mutation's outcome is then
   * unknown); later calls fail {@link NotExecutedException}.
   */
  @Override
  public void close() {
    closed = true;
    CallerThreadConnection c;
    while ((c = idle.pollFirst()) != null) {
      c.close();
      forget(c);
    }
    for (CallerThreadConnection inUse : open) {
      inUse.abort();
    }
  }
}
