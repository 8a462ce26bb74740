package io.frsm.client.transport;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The outbound edge: writes one protobuf envelope as a length-prefixed frame (see {@link
 * FrameDecoder}) into a buffer sized exactly for it. Senders check the size limit before they queue
 * a frame, so this never sees an oversized one.
 */
@Sharable
public final class FrameEncoder extends MessageToByteEncoder<MessageLite> {
  public static final FrameEncoder INSTANCE = new FrameEncoder();

  private FrameEncoder() {
    super(MessageLite.class);
  }

  @Override
  protected ByteBuf allocateBuffer(
      ChannelHandlerContext ctx, MessageLite msg, boolean preferDirect) {
    int size = WireFormat.LENGTH_PREFIX_BYTES + msg.getSerializedSize();
    return preferDirect ? ctx.alloc().ioBuffer(size) : ctx.alloc().heapBuffer(size);
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, MessageLite msg, ByteBuf out)
      throws IOException {
    int length = msg.getSerializedSize();
    out.writeInt(length);
    out.ensureWritable(length);
    ByteBuffer target = out.nioBuffer(out.writerIndex(), length);
    CodedOutputStream coded = CodedOutputStream.newInstance(target);
    msg.writeTo(coded);
    coded.checkNoSpaceLeft();
    out.writerIndex(out.writerIndex() + length);
  }
}
