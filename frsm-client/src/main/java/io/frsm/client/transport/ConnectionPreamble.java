package io.frsm.client.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.function.Consumer;

/**
 * A fixed byte string that opens a connection to announce another protocol than the port's own (the
 * peer port's range streams: docs/formats/streaming.md). Part of the framing edge: like {@link
 * FrameDecoder} and {@link FrameEncoder}, the only place its bytes are touched. The preamble's
 * first byte must have the high bit set, so no frame of the port's own protocol (which starts with
 * a non-negative int32 length) can begin with it.
 */
public final class ConnectionPreamble {
  private ConnectionPreamble() {}

  /** Writes {@code preamble} (not flushed) as the connection's first bytes. */
  public static void write(Channel channel, byte[] preamble) {
    channel.write(Unpooled.wrappedBuffer(preamble.clone()));
  }

  /**
   * First handler after TLS on an accepted connection: reads the first byte. Below 0x80 the
   * connection stays with the port's own protocol (this handler removes itself and the bytes flow
   * on unchanged). With the high bit set it must begin {@code preamble}: then the handlers named
   * {@code replaced} are removed and {@code onPreamble} installs the other protocol's handlers,
   * which receive the bytes after the preamble. Any other opening closes the connection. Not
   * sharable.
   */
  public static final class Sniffer extends ByteToMessageDecoder {
    private static final System.Logger LOG = System.getLogger(Sniffer.class.getName());

    public static final String NAME = "frsm-connection-kind";

    private final byte[] preamble;
    private final Consumer<Channel> onPreamble;
    private final List<String> replaced;

    public Sniffer(byte[] preamble, Consumer<Channel> onPreamble, List<String> replaced) {
      if (preamble.length == 0 || (preamble[0] & 0x80) == 0) {
        throw new IllegalArgumentException("a preamble's first byte must have the high bit set");
      }
      this.preamble = preamble.clone();
      this.onPreamble = onPreamble;
      this.replaced = List.copyOf(replaced);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
      if (!in.isReadable()) {
        return;
      }
      int start = in.readerIndex();
      if ((in.getByte(start) & 0x80) == 0) {
        ctx.pipeline().remove(this); // hands the buffered bytes to the port's own frame decoder
        return;
      }
      int readable = Math.min(in.readableBytes(), preamble.length);
      for (int i = 0; i < readable; i++) {
        if (in.getByte(start + i) != preamble[i]) {
          LOG.log(
              Level.WARNING,
              "closing connection from {0}: neither a frame nor a known preamble",
              ctx.channel().remoteAddress());
          in.skipBytes(in.readableBytes());
          ctx.close();
          return;
        }
      }
      if (readable < preamble.length) {
        return;
      }
      in.skipBytes(preamble.length);
      for (String name : replaced) {
        if (ctx.pipeline().get(name) != null) {
          ctx.pipeline().remove(name);
        }
      }
      onPreamble.accept(ctx.channel());
      ctx.pipeline().remove(this); // the bytes after the preamble go to the new handlers
    }
  }
}
