package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * connection (logged with the peer's address); bytes after it are discarded unread, so nothing of a
 * bad connection reaches the node. Not sharable: one per channel.
 */
public final class FrameDecoder extends ByteToMessageDecoder {
  private static final Logger LOG = LoggerFactory.getLogger(FrameDecoder.class);

  /** Parses one envelope and checks it. Must not retain the stream or its bytes. */
  @FunctionalInterface
  public interface EnvelopeReader {
    Object read(CodedInputStream in) throws WireDecodeException;
  }

  private final int maxFrameBytes;
  private final EnvelopeReader reader;
  private final Runnable onRefused;
  private boolean failed;

  public FrameDecoder(int maxFrameBytes, EnvelopeReader reader) {
    this(maxFrameBytes, reader, () -> {});
  }

  /** {@code onRefused} runs once for the frame that closes the connection (a counter: no I/O). */
  public FrameDecoder(int maxFrameBytes, EnvelopeReader reader, Runnable onRefused) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be >= 1, was " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
    this.reader = reader;
    this.onRefused = onRefused;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (failed) {
      in.skipBytes(in.readableBytes());
      return;
    }
    if (in.readableBytes() < WireFormat.LENGTH_PREFIX_BYTES) {
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
      return; // wait for the rest of the frame
    }
    int bodyStart = start + WireFormat.LENGTH_PREFIX_BYTES;
    CodedInputStream body =
        in.nioBufferCount() == 1
            ? CodedInputStream.newInstance(in.nioBuffer(bodyStart, length))
            : CodedInputStream.newInstance(ByteBufUtil.getBytes(in, bodyStart, length, false));
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

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (!failed && in.isReadable()) {
      LOG.warn(
          "connection from {} closed in the middle of a frame ({} bytes unread); dropped them",
          ctx.channel().remoteAddress(),
          in.readableBytes());
      in.skipBytes(in.readableBytes());
    }
  }

  private void fail(ChannelHandlerContext ctx, ByteBuf in, String reason) {
    failed = true;
    onRefused.run();
    in.skipBytes(in.readableBytes());
    LOG.warn("closing connection from {}: {}", ctx.channel().remoteAddress(), reason);
    ctx.close();
  }
}
