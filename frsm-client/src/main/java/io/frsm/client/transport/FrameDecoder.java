package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The inbound edge: cuts length-prefixed frames out of the byte stream and decodes each one to an
 * immutable record with {@link EnvelopeReader}. No {@code ByteBuf} passes this handler; the
 * cumulation buffer is released by {@link ByteToMessageDecoder}.
 *
 * <pre>
 * +------------------+-------------------------------+
 * | length: int32 BE | envelope: length bytes        |
 * +------------------+-------------------------------+
 * </pre>
 *
 * A length below 0 or above {@code maxFrameBytes}, or an envelope that does not decode, closes the
 * connection (logged with the peer's address, at most once a second across connections); bytes
 * after it are discarded unread, so nothing of a bad connection reaches the node. With {@link
 * InboundLimits} (a listening port's), a frame that is not complete after one read reserves its
 * declared length from the port's budget until it is (or the connection closes), and must be
 * complete within the port's partial-frame timeout: either failing closes the connection. Not
 * sharable: one per channel.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private static final System.Logger LOG = System.getLogger(FrameDecoder.class.getName());

  /**
   * Connections closed in the middle of a frame, and frames refused: at most one warning a second
   * across all connections, with the number not logged (issue 24: a remote party that opens and
   * drops connections, or sends garbage, thousands of times a second must not flood the log). Each
   * one is logged at DEBUG too, for whoever turns this logger up to find a particular connection.
   */
  private static final LogThrottle CLOSED_MID_FRAME =
      new LogThrottle(LOG, System.Logger.Level.WARNING, 1, TimeUnit.SECONDS);

  private static final LogThrottle REFUSED_FRAMES =
      new LogThrottle(LOG, System.Logger.Level.WARNING, 1, TimeUnit.SECONDS);

  /** Parses one envelope and checks it. Must not retain the stream or its bytes. */
  @FunctionalInterface
  public interface EnvelopeReader {
    Object read(CodedInputStream in) throws WireDecodeException;

    /**
     * Whether nothing {@link #read} returns shares the frame's bytes: every bytes field it keeps
     * (unknown fields of a kept protobuf message included) is copied out before {@code read}
     * returns. Then the decoder copies each frame's body into one array per thread that the next
     * frame overwrites, instead of a new array per frame. False (the safe default) for a reader
     * whose records keep a protobuf {@code ByteString} — such as a stream's chunk data.
     */
    default boolean keepsNoShareOfFrames() {
      return false;
    }
  }

  /**
   * The largest body copied into the per-thread array ({@link #BODY_COPY}); a larger frame gets an
   * array of its own, as every frame did before. Bounds what each event-loop thread keeps.
   */
  static final int REUSED_BODY_MAX_BYTES = 64 * 1024;

  /**
   * Per thread (a channel decodes on its event loop's thread): the array a frame's body is copied
   * into out of Netty's direct buffer, which protobuf cannot read in place here. Safe to reuse
   * because one frame is parsed from start to end inside {@link #decode} — {@code read} is pure
   * parsing, nothing in it decodes another frame on this thread — and the reader (checked by {@link
   * EnvelopeReader#keepsNoShareOfFrames}) keeps no share of it once it returned.
   */
  private static final FastThreadLocal<byte[]> BODY_COPY =
      new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
          return new byte[1024];
        }
      };

  private final int maxFrameBytes;
  private final EnvelopeReader reader;
  private final Runnable onRefused;
  private final InboundLimits limits;
  private boolean failed;

  /** Bytes of {@link #limits}' budget the begun frame holds; 0 when none is reserved. */
  private long reservedBytes;

  /** Counts begun frames, so a partial-frame timeout knows whether its frame is still the one. */
  private long framesBegun;

  /** Whether the frame begun last has a timeout scheduled (incomplete bytes are buffered). */
  private boolean awaitingRest;

  public FrameDecoder(int maxFrameBytes, EnvelopeReader reader) {
    this(maxFrameBytes, reader, () -> {});
  }

  /** {@code onRefused} runs once for the frame that closes the connection (a counter: no I/O). */
  public FrameDecoder(int maxFrameBytes, EnvelopeReader reader, Runnable onRefused) {
    this(maxFrameBytes, reader, onRefused, null);
  }

  /**
   * As above, holding begun frames to {@code limits} (a listening port's; null: no budget and no
   * partial-frame timeout, as on a client's outbound connections).
   */
  public FrameDecoder(
      int maxFrameBytes, EnvelopeReader reader, Runnable onRefused, InboundLimits limits) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be >= 1, was " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
    this.reader = reader;
    this.onRefused = onRefused;
    this.limits = limits;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < WireFormat.LENGTH_PREFIX_BYTES) {
      if (in.isReadable()) {
        awaitRest(ctx, in, 0);
      }
      return;
    }
    int start = in.readerIndex();
    int length = in.getInt(start);
    if (length < 0 || length > maxFrameBytes) {
      fail(
          ctx,
          in,
          "frame length "
              + Integer.toUnsignedString(length)
              + " exceeds the limit of "
              + maxFrameBytes
              + " bytes");
      return;
    }
    if (in.readableBytes() < WireFormat.LENGTH_PREFIX_BYTES + length) {
      awaitRest(ctx, in, WireFormat.LENGTH_PREFIX_BYTES + (long) length);
      return; // wait for the rest of the frame
    }
    frameComplete();
    int bodyStart = start + WireFormat.LENGTH_PREFIX_BYTES;
    CodedInputStream body;
    if (!in.hasArray() && length <= REUSED_BODY_MAX_BYTES && reader.keepsNoShareOfFrames()) {
      byte[] copy = bodyCopy(length);
      in.getBytes(bodyStart, copy, 0, length);
      // Wrapped as protobuf's "immutable" bytes: only then may a bytes field share the array
      // (newInstance(byte[]) would copy every field out of it again).
      body = UnsafeByteOperations.unsafeWrap(copy, 0, length).newCodedInput();
    } else {
      body =
          in.nioBufferCount() == 1
              ? CodedInputStream.newInstance(in.nioBuffer(bodyStart, length))
              : CodedInputStream.newInstance(ByteBufUtil.getBytes(in, bodyStart, length, false));
    }
    // Where the body was copied into an array (here, or by protobuf out of a direct buffer it
    // cannot read in place), a bytes field may share that array instead of being copied out of it
    // again; protobuf never shares a buffer it did not copy (this one goes back to the pool after
    // decoding). Every record a frame decodes to copies what it keeps, so no share outlives the
    // frame's handling.
    body.enableAliasing(true);
    Object decoded;
    try {
      decoded = reader.read(body);
    } catch (WireDecodeException e) {
      fail(ctx, in, e.getMessage());
      return;
    }
    in.skipBytes(WireFormat.LENGTH_PREFIX_BYTES + length);
    out.add(decoded);
  }

  /** This thread's body array, grown (by doubling, up to the cap) to hold {@code length} bytes. */
  private static byte[] bodyCopy(int length) {
    byte[] copy = BODY_COPY.get();
    if (copy.length < length) {
      copy = new byte[Math.min(REUSED_BODY_MAX_BYTES, Integer.highestOneBit(length - 1) << 1)];
      BODY_COPY.set(copy);
    }
    return copy;
  }

  /**
   * A frame is begun but not complete ({@code frameBytes}: its whole length, 0 while its length is
   * not yet known): reserve its bytes once they are known, and start its timeout once.
   */
  private void awaitRest(ChannelHandlerContext ctx, ByteBuf in, long frameBytes) {
    if (limits == null) {
      return;
    }
    if (frameBytes > 0 && reservedBytes == 0) {
      if (!limits.reserve(frameBytes, ctx.channel().remoteAddress())) {
        close(ctx, in); // counted and logged by the limits
        return;
      }
      reservedBytes = frameBytes;
    }
    if (!awaitingRest) {
      awaitingRest = true;
      long frame = ++framesBegun;
      ctx.executor()
          .schedule(
              () -> {
                if (!failed && awaitingRest && framesBegun == frame && ctx.channel().isActive()) {
                  limits.stalled(ctx.channel().remoteAddress(), actualReadableBytes());
                  close(ctx, internalBuffer());
                }
              },
              limits.partialFrameTimeoutNanos(),
              TimeUnit.NANOSECONDS);
    }
  }

  /** The begun frame is complete: its reservation and timeout end. */
  private void frameComplete() {
    awaitingRest = false;
    releaseReservation();
  }

  private void releaseReservation() {
    if (reservedBytes > 0) {
      limits.release(reservedBytes);
      reservedBytes = 0;
    }
  }

  @Override
  protected void handlerRemoved0(ChannelHandlerContext ctx) {
    // The channel closed (or the pipeline dropped this handler): its buffer is released, and so
    // is what its begun frame held of the budget.
    awaitingRest = false;
    releaseReservation();
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (!failed && in.isReadable()) {
      log(
          CLOSED_MID_FRAME,
          "connection from {0} closed in the middle of a frame ({1} bytes unread); dropped them",
          ctx.channel().remoteAddress(),
          in.readableBytes());
      in.skipBytes(in.readableBytes());
    }
    awaitingRest = false;
    releaseReservation();
  }

  private void fail(ChannelHandlerContext ctx, ByteBuf in, String reason) {
    onRefused.run();
    log(REFUSED_FRAMES, "closing connection from {0}: {1}", ctx.channel().remoteAddress(), reason);
    close(ctx, in);
  }

  /** Every event at DEBUG, and at most one a second of its kind at WARNING. */
  private static void log(LogThrottle warnings, String pattern, Object... params) {
    if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
      LOG.log(System.Logger.Level.DEBUG, java.text.MessageFormat.format(pattern, params));
    }
    warnings.log(pattern, params);
  }

  /** Ends the connection: nothing more it sent is read, nothing it began holds the budget. */
  private void close(ChannelHandlerContext ctx, ByteBuf in) {
    failed = true;
    awaitingRest = false;
    releaseReservation();
    if (in != null) {
      in.skipBytes(in.readableBytes());
    }
    ctx.close();
  }
}
