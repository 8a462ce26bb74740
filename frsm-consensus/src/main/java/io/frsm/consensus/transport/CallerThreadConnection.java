package io.frsm.consensus.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.consensus.transport.proto.ClientEnvelope;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * One client-protocol connection used by one thread at a time, with one request in flight: the
 * calling thread writes the request and reads the response itself, so a call costs no hand-off to
 * an event loop and back (see {@link CallerThreadClient}).
 *
 * <p>The socket is non-blocking and waits go through a selector of its own, so a wait is bounded by
 * the call's deadline, and an idle connection can be checked without blocking before it is reused:
 * a connection the node closed (it stopped, or restarted) reads end-of-stream there, and is dropped
 * before the request is written — so the request fails {@link NotExecutedException}, not {@link
 * OutcomeUnknownException}.
 *
 * <p>Failure rules, the same as {@link ClientProtocolClient}'s: never written → {@link
 * NotExecutedException}; written and then no usable response before the deadline → {@link
 * OutcomeUnknownException} for a mutation, {@link NotExecutedException} for a get. Any failure
 * after the write closes the connection: a late response must never be read as another call's.
 *
 * <p>Not thread-safe: the pool hands it to one thread at a time.
 */
final class CallerThreadConnection implements AutoCloseable {
  /** Buffers up to this size stay with the connection; a larger frame gets its own, once. */
  private static final int KEPT_BUFFER_BYTES = 16 * 1024;

  private final InetSocketAddress server;
  private final ClientCodec codec;
  private final int maxFrameBytes;
  private final SocketChannel channel;
  private final Selector selector;
  private final SelectionKey key;
  private final ByteBuffer header = ByteBuffer.allocate(WireFormat.LENGTH_PREFIX_BYTES);
  private ByteBuffer out = ByteBuffer.allocate(KEPT_BUFFER_BYTES);
  private final ByteBuffer in = ByteBuffer.allocate(KEPT_BUFFER_BYTES);
  private long nextRequestId;
  private volatile boolean open = true;

  private CallerThreadConnection(
      InetSocketAddress server,
      ClientCodec codec,
      int maxFrameBytes,
      SocketChannel channel,
      Selector selector,
      SelectionKey key) {
    this.server = server;
    this.codec = codec;
    this.maxFrameBytes = maxFrameBytes;
    this.channel = channel;
    this.selector = selector;
    this.key = key;
  }

  /**
   * Dials {@code server}, waiting at most until {@code deadlineNanos}.
   *
   * @throws NotExecutedException if the node cannot be reached in time
   */
  static CallerThreadConnection dial(
      InetSocketAddress server, ClientCodec codec, int maxFrameBytes, long deadlineNanos) {
    SocketChannel channel = null;
    Selector selector = null;
    try {
      channel = SocketChannel.open();
      channel.configureBlocking(false);
      channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
      selector = Selector.open();
      SelectionKey key = channel.register(selector, 0);
      if (!channel.connect(server)) {
        key.interestOps(SelectionKey.OP_CONNECT);
        while (!channel.finishConnect()) {
          long left = deadlineNanos - System.nanoTime();
          if (left <= 0) {
            throw new NotExecutedException("no connection to " + server + " before the timeout");
          }
          selector.select(millisAtLeastOne(left));
          selector.selectedKeys().clear();
        }
        key.interestOps(0);
      }
      return new CallerThreadConnection(server, codec, maxFrameBytes, channel, selector, key);
    } catch (IOException e) {
      closeQuietly(channel, selector);
      throw new NotExecutedException("cannot connect to " + server + ": " + e, e);
    } catch (RuntimeException e) {
      closeQuietly(channel, selector);
      throw e;
    }
  }

  /**
   * True if the connection can take a request: open, and the node has neither closed it nor sent
   * anything unasked (either makes it unusable). One non-blocking read; never waits.
   */
  boolean usable() {
    if (!open) {
      return false;
    }
    try {
      header.clear();
      int n = channel.read(header);
      if (n == 0) {
        return true;
      }
    } catch (IOException e) {
      // reset by the node: unusable
    }
    close();
    return false;
  }

  /**
   * Sends {@code request} and waits for its response until {@code deadlineNanos}, the end of the
   * call's {@code timeout} (named in the failure).
   *
   * @throws NotExecutedException if the request exceeds the frame limit (the connection stays
   *     usable), or as the class comment says
   * @throws OutcomeUnknownException as the class comment says
   */
  OperationResponse call(OperationRequest request, long deadlineNanos, Duration timeout) {
    assert open : "a closed connection was handed out";
    long requestId = ++nextRequestId;
    ClientEnvelope envelope = codec.encodeRequest(requestId, request);
    boolean mutates = request.operation().mutates();
    if (envelope.getSerializedSize() > maxFrameBytes) {
      throw new NotExecutedException(
          "request of "
              + envelope.getSerializedSize()
              + " bytes exceeds maxFrameBytes "
              + maxFrameBytes);
    }
    try {
      writeFrame(envelope, deadlineNanos);
    } catch (IOException | TimedOut e) {
      close();
      // Some bytes may have reached the node: only a get is surely harmless.
      throw lost(mutates, "request to " + server + " not fully written: " + e.getMessage(), e);
    }
    try {
      ClientFrame.Response response = readResponse(deadlineNanos);
      if (response.requestId() != requestId) {
        close();
        throw lost(
            mutates,
            "response from "
                + server
                + " names request "
                + response.requestId()
                + ", expected "
                + requestId,
            null);
      }
      return response.response();
    } catch (TimedOut e) {
      close();
      throw lost(
          mutates,
          "no response within " + timeout.toMillis() + " ms (" + e.getMessage() + ")",
          null);
    } catch (IOException | WireDecodeException e) {
      close();
      throw lost(mutates, "connection to " + server + " failed before the response: " + e, e);
    }
  }

  private void writeFrame(ClientEnvelope envelope, long deadlineNanos)
      throws IOException, TimedOut {
    int length = envelope.getSerializedSize();
    ByteBuffer buffer = buffer(out, WireFormat.LENGTH_PREFIX_BYTES + length);
    if (buffer.capacity() <= KEPT_BUFFER_BYTES) {
      out = buffer;
    }
    buffer.clear();
    buffer.putInt(length);
    CodedOutputStream coded = CodedOutputStream.newInstance(buffer);
    envelope.writeTo(coded);
    coded.flush();
    buffer.flip();
    while (buffer.hasRemaining()) {
      if (channel.write(buffer) == 0) {
        await(SelectionKey.OP_WRITE, deadlineNanos, "writing to " + server);
      }
    }
  }

  /**
   * Waits for the response and reads it: usually one wait and one read (the node writes a response
   * in one piece). Nothing else may arrive on the connection (one request in flight); bytes after
   * the response make it unusable.
   */
  private ClientFrame.Response readResponse(long deadlineNanos)
      throws IOException, TimedOut, WireDecodeException {
    ByteBuffer buffer = in;
    buffer.clear();
    // Wait before the first read: right after the write the answer is never there yet.
    await(SelectionKey.OP_READ, deadlineNanos, "waiting for the response from " + server);
    readAtLeast(buffer, WireFormat.LENGTH_PREFIX_BYTES, deadlineNanos);
    int length = buffer.getInt(0);
    if (length < 0 || length > maxFrameBytes) {
      throw new WireDecodeException(
          "frame length "
              + Integer.toUnsignedString(length)
              + " exceeds the limit of "
              + maxFrameBytes
              + " bytes");
    }
    int frameBytes = WireFormat.LENGTH_PREFIX_BYTES + length;
    if (buffer.capacity() < frameBytes) {
      ByteBuffer larger = ByteBuffer.allocate(frameBytes);
      buffer.flip();
      larger.put(buffer);
      buffer = larger;
    }
    readAtLeast(buffer, frameBytes, deadlineNanos);
    if (buffer.position() > frameBytes) {
      close(); // the response is whole; what follows it is not ours to read
    }
    Object frame =
        codec.read(
            CodedInputStream.newInstance(buffer.array(), WireFormat.LENGTH_PREFIX_BYTES, length));
    if (!(frame instanceof ClientFrame.Response response)) {
      throw new WireDecodeException("expected a response, read " + frame);
    }
    return response;
  }

  /** Reads into {@code target} until it holds at least {@code bytes}; it has room for them. */
  private void readAtLeast(ByteBuffer target, int bytes, long deadlineNanos)
      throws IOException, TimedOut {
    while (target.position() < bytes) {
      int n = channel.read(target);
      if (n < 0) {
        throw new IOException("closed by the node");
      }
      if (n == 0) {
        await(SelectionKey.OP_READ, deadlineNanos, "waiting for the response from " + server);
      }
    }
  }

  private void await(int op, long deadlineNanos, String what) throws IOException, TimedOut {
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      throw new TimedOut("no progress " + what + " before the timeout");
    }
    if (Thread.currentThread().isInterrupted()) {
      // The selector would return at once, forever: give up, keeping the interrupt.
      throw new IOException("interrupted " + what);
    }
    try {
      key.interestOps(op);
    } catch (java.nio.channels.CancelledKeyException e) {
      throw new java.nio.channels.ClosedChannelException(); // aborted by the client's close
    }
    selector.select(millisAtLeastOne(left));
    selector.selectedKeys().clear();
  }

  private static ByteBuffer buffer(ByteBuffer kept, int needed) {
    return kept.capacity() >= needed ? kept : ByteBuffer.allocate(needed);
  }

  private static long millisAtLeastOne(long nanos) {
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }

  private static RuntimeException lost(boolean mutates, String reason, Throwable cause) {
    return mutates
        ? new OutcomeUnknownException(reason, cause)
        : new NotExecutedException(reason, cause);
  }

  boolean isOpen() {
    return open;
  }

  /** Closes the connection; the owning thread only. */
  @Override
  public synchronized void close() {
    if (open) {
      open = false;
      closeQuietly(channel, selector);
    }
  }

  /**
   * Any thread: ends a call in progress on this connection (its owner wakes, finds the channel
   * closed, and fails the call as lost). Synchronized with {@link #close} so that a wake-up never
   * reaches a closed selector.
   */
  synchronized void abort() {
    if (open) {
      closeQuietly(channel, null);
      selector.wakeup();
    }
  }

  private static void closeQuietly(SocketChannel channel, Selector selector) {
    try {
      if (selector != null) {
        selector.close();
      }
    } catch (IOException ignored) {
      // nothing left to release
    }
    try {
      if (channel != null) {
        channel.close();
      }
    } catch (IOException ignored) {
      // nothing left to release
    }
  }

  /** The deadline passed while waiting. */
  private static final class TimedOut extends Exception {
    TimedOut(String message) {
      super(message, null, false, false);
    }
  }
}
