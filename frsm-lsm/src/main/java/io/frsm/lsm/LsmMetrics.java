package io.frsm.lsm;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/** The engine's own meters; the registry is passed in, never global. */
final class LsmMetrics {
  final Counter flushBytes;
  final Timer flushTime;
  final Counter compactionBytesWritten;
  final Counter compactionBytesRead;
  final Timer compactionTime;
  final Counter tombstonesPurged;
  final Counter mergeConflicts;
  final Counter corruptionsDetected;
  final Counter corruptBlocks;
  final Counter writesRejected;
  final Counter unloggedWrites;

  LsmMetrics(MeterRegistry registry) {
    flushBytes =
        Counter.builder("frsm.lsm.flush.bytes")
            .description("bytes written by memtable flushes")
            .baseUnit("bytes")
            .register(registry);
    flushTime = Timer.builder("frsm.lsm.flush.time").register(registry);
    compactionBytesWritten =
        Counter.builder("frsm.lsm.compaction.bytes.written").baseUnit("bytes").register(registry);
    compactionBytesRead =
        Counter.builder("frsm.lsm.compaction.bytes.read").baseUnit("bytes").register(registry);
    compactionTime = Timer.builder("frsm.lsm.compaction.time").register(registry);
    tombstonesPurged =
        Counter.builder("frsm.lsm.tombstones.purged")
            .description("deleted keys dropped by compaction after the grace period")
            .register(registry);
    mergeConflicts =
        Counter.builder("frsm.lsm.merge.conflicts")
            .description("one ballot, one instance, two values: corruption or a protocol bug")
            .register(registry);
    corruptionsDetected = Counter.builder("frsm.lsm.corruptions").register(registry);
    corruptBlocks =
        Counter.builder("frsm.lsm.corrupt.blocks")
            .description(
                "data blocks found corrupt and quarantined (by reads, compaction or scrub)")
            .register(registry);
    writesRejected = Counter.builder("frsm.lsm.writes.rejected").register(registry);
    unloggedWrites =
        Counter.builder("frsm.lsm.writes.unlogged")
            .description("cells merged into the memtable without a commit-log record (hints)")
            .register(registry);
  }
}
