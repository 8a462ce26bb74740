package io.frsm.server.node;

import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.server.config.NodeKeys;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The node's {@link DiskSpaceGuard} on a polling thread of its own, the {@link WriteGate} it shares
 * with the storage engine's flush backlog, the {@link AcceptorSilence} they drive, and their
 * meters. The first poll runs before {@link #start} returns, so a node that starts on a full disk
 * refuses writes from its first operation. Closed by the node's stop.
 */
final class DiskSpaceWatch implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(DiskSpaceGuard.class.getName());

  private final WriteGate gate;
  private final AcceptorSilence silence;
  private final ScheduledExecutorService poller;

  private DiskSpaceWatch(WriteGate gate, AcceptorSilence silence, ScheduledExecutorService poller) {
    this.gate = gate;
    this.silence = silence;
    this.poller = poller;
  }

  /** Reads the space once, then every {@code node.diskSpaceCheckInterval}; meters in {@code m}. */
  static DiskSpaceWatch start(
      int nodeId, NodeSettings settings, LsmConfig lsm, LsmEngine engine, NodeMetrics metrics) {
    List<Path> directories = new ArrayList<>();
    directories.add(lsm.dataDirectory());
    directories.addAll(lsm.commitLogDirectories());
    DiskSpaceGuard guard =
        new DiskSpaceGuard(
            nodeId,
            directories,
            settings.diskSpace(),
            settings.get(NodeKeys.MIN_FREE_DISK_BYTES),
            settings.get(NodeKeys.MIN_FREE_DISK_FRACTION),
            LOG);
    WriteGate gate = new WriteGate(nodeId, guard, engine::writesStalled, engine::pendingFlushes);
    AcceptorSilence silence = new AcceptorSilence(gate::closed);
    guard.check();
    ScheduledExecutorService poller =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "frsm-node-" + nodeId + "-disk-space");
              t.setDaemon(true);
              return t;
            });
    long everyNanos = settings.get(NodeKeys.DISK_SPACE_CHECK_INTERVAL).toNanos();
    poller.scheduleWithFixedDelay(guard::check, everyNanos, everyNanos, TimeUnit.NANOSECONDS);
    metrics.gauge(
        "frsm.disk.space.low",
        "1 while a storage directory has less usable space than the node keeps (writes refused)",
        () -> guard.low() ? 1 : 0);
    metrics.counter(
        "frsm.disk.space.refused",
        "client mutations refused because disk space was low",
        "kind",
        "mutation",
        guard::refusedMutations);
    metrics.counter(
        "frsm.disk.space.refused",
        "messages the acceptor dropped unheard because disk space was low or flushes were behind"
            + " (it stays silent)",
        "kind",
        "acceptor_message",
        silence::dropped);
    metrics.counter(
        "frsm.disk.space.low.spells",
        "times disk space went from enough to low",
        "cause",
        "free_space",
        guard::lowSpells);
    metrics.counter(
        "frsm.write.stall.refused",
        "client mutations refused because the storage engine's flushes were behind",
        "kind",
        "mutation",
        gate::refusedForFlushes);
    return new DiskSpaceWatch(gate, silence, poller);
  }

  WriteGate gate() {
    return gate;
  }

  AcceptorSilence silence() {
    return silence;
  }

  @Override
  public void close() {
    poller.shutdownNow();
  }
}
