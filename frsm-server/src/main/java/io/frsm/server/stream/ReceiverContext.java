package io.frsm.server.stream;

import io.frsm.client.transport.InboundLimits;
import io.frsm.client.transport.TransportEventLoops;
import io.frsm.client.transport.tls.ChannelSecurity;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntFunction;

/**
 * What every copy of one receiving node shares. Immutable. {@code dialedLimits} hold the frames of
 * the stream connections this node dials (a copy's, a hand-off's) to the node-wide budget for
 * frames not yet complete, as the peer port's limits hold the connections it accepts; null: only
 * the stream frame limit (tests).
 */
record ReceiverContext(
    int selfNodeId,
    String clusterId,
    ChannelSecurity security,
    TransportEventLoops loops,
    IntFunction<InetSocketAddress> peerAddresses,
    Path stagingRoot,
    TableImporter importer,
    UsableSpace space,
    StreamSettings settings,
    Throttle throttle,
    StreamMetrics metrics,
    InboundLimits dialedLimits) {

  /** Publishes staged files into the engine, all or none (the engine's importRingRange). */
  @FunctionalInterface
  interface TableImporter {
    void importRange(List<Path> files, long fromExclusive, long toInclusive) throws IOException;
  }

  /** The bytes a directory's file system has left for this process (a seam for disk-full tests). */
  @FunctionalInterface
  interface UsableSpace {
    long usableBytes(Path directory) throws IOException;

    static UsableSpace fileStore() {
      return dir -> Files.getFileStore(dir).getUsableSpace();
    }
  }
}
