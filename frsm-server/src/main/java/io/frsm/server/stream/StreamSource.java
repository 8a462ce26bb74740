package io.frsm.server.stream;

import io.frsm.client.transport.FrameEncoder;
import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.tls.ChannelSecurity;
import io.frsm.transport.stream.StreamAcceptor;
import io.frsm.transport.stream.StreamFraming;
import io.netty.channel.Channel;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The source side of range streaming: takes over peer-port connections that announced a stream (the
 * peer transport's {@link StreamAcceptor}) and serves each with a {@link SourceConnection}. File
 * work (exports, reads) runs on the stream executor, never on the event loops that carry the
 * consensus messages. Thread-safe.
 */
final class StreamSource implements StreamAcceptor {
  private final SourceContext context;
  private final StreamFraming framing;
  private final LongAdder refusedFrames = new LongAdder();

  /** What every connection of this source shares. */
  record SourceContext(
      int selfNodeId,
      String clusterId,
      ChannelSecurity security,
      SnapshotStore snapshots,
      StreamSettings settings,
      Throttle throttle,
      ChunkFaults faults,
      StreamMetrics metrics,
      ScheduledExecutorService executor,
      HandOffDesk handOffs) {}

  StreamSource(SourceContext context) {
    this.context = context;
    this.framing = new StreamFraming(context.clusterId());
  }

  @Override
  public void accept(Channel channel, InboundLimits limits) {
    long idleMillis = context.settings().idleTimeout().toMillis();
    channel
        .pipeline()
        .addLast(new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS))
        .addLast(framing.decoder(refusedFrames::increment, limits))
        .addLast(FrameEncoder.INSTANCE)
        .addLast(new SourceConnection(context));
  }

  /** Stream frames refused by the framing (each closed its connection). */
  long refusedFrames() {
    return refusedFrames.sum();
  }
}
