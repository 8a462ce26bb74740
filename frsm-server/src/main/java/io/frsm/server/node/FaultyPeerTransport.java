package io.frsm.server.node;

import io.frsm.consensus.core.Message;
import io.frsm.transport.PeerTransport;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A node's peer transport seen through its {@link PeerLinkFaults} (tests only): sends to a cut peer
 * are dropped as the network would drop them (the call still reports the message queued: a send is
 * no promise of delivery), delayed sends go out later from a timer thread of their own, in order
 * per peer, and {@link #inbound} drops what arrives from a cut peer before the node sees it.
 */
final class FaultyPeerTransport implements PeerTransport {
  private final PeerTransport delegate;
  private final PeerLinkFaults faults;

  /** Created on the first delayed send: a node without delays starts no thread. */
  private volatile ScheduledExecutorService delayer;

  FaultyPeerTransport(PeerTransport delegate, PeerLinkFaults faults) {
    this.delegate = delegate;
    this.faults = faults;
  }

  /** {@code handler} behind the faults: what arrives from a cut peer is dropped. */
  static InboundHandler inbound(InboundHandler handler, PeerLinkFaults faults) {
    return (from, message) -> {
      if (faults.dropsFrom(from)) {
        faults.countDrop();
        return;
      }
      handler.onMessage(from, message);
    };
  }

  @Override
  public boolean send(int nodeId, Message message) {
    if (faults.dropsTo(nodeId) || faults.dropsSent(message)) {
      faults.countDrop();
      return true;
    }
    long delay = faults.delayToNanos(nodeId);
    if (delay == 0) {
      return delegate.send(nodeId, message);
    }
    try {
      // One thread and equal delays per peer: messages to one peer leave in the order sent.
      delayer().schedule(() -> delegate.send(nodeId, message), delay, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException closed) {
      return false;
    }
    return true;
  }

  private ScheduledExecutorService delayer() {
    ScheduledExecutorService d = delayer;
    if (d == null) {
      synchronized (this) {
        d = delayer;
        if (d == null) {
          d =
              Executors.newSingleThreadScheduledExecutor(
                  r -> {
                    Thread t = new Thread(r, "frsm-peer-link-delays");
                    t.setDaemon(true);
                    return t;
                  });
          delayer = d;
        }
      }
    }
    return d;
  }

  @Override
  public void close() {
    ScheduledExecutorService d = delayer;
    if (d != null) {
      d.shutdownNow();
    }
    delegate.close();
  }
}
