package io.frsm.server.stream;

import io.frsm.client.transport.ConnectionPreamble;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.transport.HandOffShipments;
import io.frsm.transport.proto.HandOffChunk;
import io.frsm.transport.proto.HandOffImported;
import io.frsm.transport.proto.StreamEnvelope;
import io.frsm.transport.stream.StreamFrame;
import io.frsm.transport.stream.StreamWire;
import io.netty.channel.Channel;
import java.lang.System.Logger.Level;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Hand-off shipments between nodes (docs/PROTOCOL.md "Hand-off instead of a scan";
 * docs/formats/streaming.md "Hand-off shipments"). The stand-in pushes a shipment to its successor
 * over a stream connection it dials to the successor's peer port ({@link #ship}); the successor's
 * {@link SourceConnection} puts the chunks together and hands the shipment to {@link #received},
 * which gives it to the node's core, and answers {@link HandOffImported}.
 *
 * <p>Why a stream connection and not the peer connection: a shipment may be megabytes, and on the
 * peer connection it would queue the Paxos messages behind it (one TCP stream per pair of nodes);
 * the stream connection has its own socket, shares the peer port (preamble), and already checks the
 * peer's node identity (TLS) and the sender on every frame. Thread-safe.
 */
public final class HandOffDesk {
  private static final System.Logger LOG = System.getLogger(HandOffDesk.class.getName());

  /** Where a received shipment goes: the node's core. */
  @FunctionalInterface
  public interface Importer {
    /** Feeds {@code s}, sent by node {@code from}, to the core; false if it takes none. */
    boolean take(int from, HandOffShipment s);
  }

  /**
   * Entry bytes all shipments being received may hold at once: a peer (or several) opening many
   * connections cannot make the node hold more than this; a shipment beyond it is refused (its
   * stand-in releases anyway, the successor scans).
   */
  static final long RECEIVE_BUDGET_BYTES = HandOffShipments.MAX_SHIPMENT_BYTES;

  private final ReceiverContext context;
  private final long receiveBudget;
  private final java.util.concurrent.atomic.AtomicLong receiving =
      new java.util.concurrent.atomic.AtomicLong();
  private volatile Importer importer = (from, s) -> false;

  HandOffDesk(ReceiverContext context) {
    this(context, RECEIVE_BUDGET_BYTES);
  }

  HandOffDesk(ReceiverContext context, long receiveBudget) {
    this.context = context;
    this.receiveBudget = receiveBudget;
  }

  /** Reserves {@code bytes} of the receive budget for a chunk; false if they do not fit. */
  boolean reserve(long bytes) {
    while (true) {
      long now = receiving.get();
      if (now + bytes > receiveBudget) {
        return false;
      }
      if (receiving.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Gives back what {@link #reserve} took (the shipment was taken, refused or abandoned). */
  void unreserve(long bytes) {
    long left = receiving.addAndGet(-bytes);
    assert left >= 0 : "hand-off receive budget below zero: " + left;
  }

  /** Bytes of shipments being received now (tests). */
  long receiving() {
    return receiving.get();
  }

  /** Shipments received go to {@code importer} from now on (set once the core runs). */
  public void importTo(Importer importer) {
    this.importer = importer;
  }

  /** A whole shipment arrived from node {@code from}: whether the core took it. */
  boolean received(int from, HandOffShipment s) {
    try {
      return importer.take(from, s);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "hand-off shipment from node " + from + " not imported", e);
      return false;
    }
  }

  /**
   * Pushes {@code s} to node {@code successor}: completes true once the successor answered that its
   * core took the shipment; false if it refused it, the connection failed, or no answer came within
   * {@code timeout}. Never completes exceptionally.
   */
  public CompletableFuture<Boolean> ship(int successor, HandOffShipment s, Duration timeout) {
    CompletableFuture<Boolean> answer = new CompletableFuture<>();
    List<HandOffChunk> chunks;
    InetSocketAddress address;
    try {
      chunks = HandOffShipments.chunks(s, HandOffShipments.CHUNK_TARGET_BYTES);
      address = context.peerAddresses().apply(successor);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "hand-off shipment to node " + successor + " not sent", e);
      answer.complete(false);
      return answer;
    }
    if (address == null) {
      answer.complete(false);
      return answer;
    }
    AtomicBoolean sent = new AtomicBoolean();
    Channel ch;
    try {
      ch =
          StreamDialer.dial(
              context,
              successor,
              address,
              new StreamDialer.Events() {
                @Override
                public void ready(Channel channel) {
                  if (!sent.compareAndSet(false, true)) {
                    return;
                  }
                  ConnectionPreamble.write(channel, StreamWire.preamble());
                  for (HandOffChunk c : chunks) {
                    channel.write(envelope().setHandOffChunk(c).build());
                    context.metrics().handOffBytes.increment(c.getEntries().size());
                  }
                  channel.flush();
                }

                @Override
                public void frame(Channel channel, StreamFrame frame) {
                  StreamEnvelope e = frame.envelope();
                  boolean ok =
                      frame.senderNodeId() == successor
                          && e.hasHandOffImported()
                          && e.getHandOffImported().getRange() == s.range()
                          && e.getHandOffImported().getTerm() == s.term()
                          && e.getHandOffImported().getImported();
                  if (!ok && e.hasError()) {
                    LOG.log(
                        Level.WARNING,
                        "node {0} refused the hand-off shipment of range {1}: {2}",
                        successor,
                        s.range(),
                        e.getError().getMessage());
                  }
                  answer.complete(ok);
                  channel.close();
                }

                @Override
                public void failed(Channel channel, String why) {
                  answer.complete(false);
                }

                @Override
                public void closed(Channel channel) {
                  answer.complete(false);
                }
              });
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "hand-off shipment to node " + successor + " not sent", e);
      answer.complete(false);
      return answer;
    }
    return answer
        .completeOnTimeout(false, timeout.toMillis(), TimeUnit.MILLISECONDS)
        .whenComplete((ok, error) -> ch.close());
  }

  private StreamEnvelope.Builder envelope() {
    return StreamWire.envelope(context.clusterId(), context.selfNodeId());
  }
}
