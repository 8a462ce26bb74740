package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.frsm.client.transport.TransportEventLoops;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A socket read gets a buffer large enough for a whole frame of the usual sizes, even after a run
 * of small frames ({@code ReadBuffers}): one operation in flight per connection, as an independent
 * client sends them, costs one read per frame. With Netty's default sizing (its buffer shrinks
 * after small reads, and a full buffer means one read more) this test counted 270 reads for 240
 * frames.
 */
class ReadBuffersTest {
  private static final int ROUNDS = 60;
  private static final int SMALL = 50; // a CAS answer, an accept acknowledgement
  private static final int LARGE = 700; // a get's answer or a CAS request with a 512-byte value

  @Test
  void frameAfterSmallFrames_arrivesInOneRead_onEveryAcceptedSocket() throws Exception {
    AtomicLong reads = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    try (TransportEventLoops loops = TransportEventLoops.create(1, true)) {
      Channel server =
          ServerSockets.bind(
              ServerSockets.bootstrap(loops)
                  .childHandler(
                      new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                          ch.pipeline().addLast(new ReadCounter(reads, bytes));
                        }
                      }),
              new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
              "test listener");
      try (Socket socket = new Socket()) {
        socket.setTcpNoDelay(true);
        socket.connect(server.localAddress(), 10_000);
        OutputStream out = socket.getOutputStream();
        long sent = 0;
        int writes = 0;
        for (int round = 0; round < ROUNDS; round++) {
          for (int size : new int[] {SMALL, SMALL, SMALL, LARGE}) {
            out.write(new byte[size]);
            out.flush();
            sent += size;
            writes++;
            long expected = sent;
            // One write in flight at a time, as an independent client's one operation.
            Await.until(() -> bytes.get() == expected, Duration.ofSeconds(10), "bytes arrived");
          }
        }
        assertEquals(writes, reads.get(), "one read per frame");
      } finally {
        server.close().syncUninterruptibly();
      }
    }
  }

  /** Counts the socket reads (each arrives as one buffer at the head of the pipeline). */
  private static final class ReadCounter extends ChannelInboundHandlerAdapter {
    private final AtomicLong reads;
    private final AtomicLong bytes;

    ReadCounter(AtomicLong reads, AtomicLong bytes) {
      this.reads = reads;
      this.bytes = bytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf buf = (ByteBuf) msg;
      reads.incrementAndGet();
      bytes.addAndGet(buf.readableBytes());
      buf.release();
    }
  }
}
