package io.frsm.transport.stream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.lang.System.Logger.Level;
import java.util.List;

/**
 * First handler after TLS on an accepted peer-port connection: reads the first byte. A peer frame
 * starts with a non-negative int32 length, so a first byte below 0x80 leaves the connection to the
 * peer protocol (this handler removes itself and the bytes flow on unchanged). A first byte with
 * the high bit set must begin the 8-byte stream preamble ({@link StreamWire}): then the peer
 * protocol's handlers named {@code peerHandlers} are removed and the {@link StreamAcceptor}
 * installs the stream protocol's. Any other preamble closes the connection. Not sharable.
 */
public final class ConnectionKindSniffer extends ByteToMessageDecoder {
  private static final System.Logger LOG = System.getLogger(ConnectionKindSniffer.class.getName());

  public static final String NAME = "frsm-connection-kind";

  private final StreamAcceptor streams;
  private final List<String> peerHandlers;

  public ConnectionKindSniffer(StreamAcceptor streams, List<String> peerHandlers) {
    this.streams = streams;
    this.peerHandlers = List.copyOf(peerHandlers);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (!in.isReadable()) {
      return;
    }
    int start = in.readerIndex();
    if (!StreamWire.announcesStream(in.getByte(start))) {
      ctx.pipeline().remove(this); // hands the buffered bytes to the peer frame decoder
      return;
    }
    int readable = Math.min(in.readableBytes(), StreamWire.PREAMBLE_BYTES);
    for (int i = 0; i < readable; i++) {
      if (!StreamWire.isPreambleByte(i, in.getByte(start + i))) {
        LOG.log(
            Level.WARNING,
            "closing connection from {0}: neither a peer frame nor a stream preamble",
            ctx.channel().remoteAddress());
        in.skipBytes(in.readableBytes());
        ctx.close();
        return;
      }
    }
    if (readable < StreamWire.PREAMBLE_BYTES) {
      return;
    }
    in.skipBytes(StreamWire.PREAMBLE_BYTES);
    for (String name : peerHandlers) {
      if (ctx.pipeline().get(name) != null) {
        ctx.pipeline().remove(name);
      }
    }
    streams.accept(ctx.channel());
    ctx.pipeline().remove(this); // the bytes after the preamble go to the stream handlers
  }
}
