package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.manifest.TableEntry;
import io.frsm.lsm.manifest.TokenInterval;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What this replica cannot vouch for until it is repaired, and the release of it: the whole-replica
 * fence a damaged commit log left ({@link ReplicaFence}), tables quarantined whole, and quarantined
 * blocks of live tables. The quarantine itself is recorded by {@link EngineState}; this class reads
 * it out and ends it.
 */
final class ReplicaQuarantine {
  private final FileSystem fs;
  private final Path dataDirectory;
  private final EngineState state;
  private final TableSalvage salvage;
  private final Runnable afterSalvage;

  /** Every token quarantined ({@link ReplicaFence}); set at open, cleared by its release. */
  private volatile boolean replicaFenced;

  /**
   * @param afterSalvage runs once a table with quarantined blocks was rewritten without them (the
   *     engine schedules a minor compaction: the table set changed)
   */
  ReplicaQuarantine(
      FileSystem fs,
      Path dataDirectory,
      EngineState state,
      TableSalvage salvage,
      Runnable afterSalvage) {
    this.fs = fs;
    this.dataDirectory = dataDirectory;
    this.state = state;
    this.salvage = salvage;
    this.afterSalvage = afterSalvage;
  }

  /** Reads the fence file; returns whether the replica is fenced. Called once, at open. */
  boolean loadFence() {
    replicaFenced = ReplicaFence.present(fs, dataDirectory);
    return replicaFenced;
  }

  /** Whether every token is quarantined: reads must fail until the fence is released. */
  boolean replicaFenced() {
    return replicaFenced;
  }

  /** See {@link LsmEngine#releaseQuarantine(long)}. */
  void release(long generation) throws IOException {
    if (generation == ReplicaFence.GENERATION) {
      if (!replicaFenced) {
        throw new IllegalArgumentException("the replica is not fenced");
      }
      ReplicaFence.remove(fs, dataDirectory);
      replicaFenced = false;
      return;
    }
    boolean whole =
        state.liveEntries().stream().anyMatch(t -> t.generation() == generation && t.quarantined());
    if (whole) {
      state.releaseQuarantine(generation);
    } else {
      salvage.rewriteWithoutDamage(generation);
      afterSalvage.run();
    }
  }

  /** See {@link LsmEngine#quarantinedIntervals()}. */
  List<QuarantinedInterval> intervals() {
    List<QuarantinedInterval> out = new ArrayList<>();
    if (replicaFenced) {
      out.add(
          new QuarantinedInterval(
              ReplicaFence.GENERATION, new TokenInterval(Long.MIN_VALUE, Long.MAX_VALUE), true));
    }
    for (TableEntry t : state.liveEntries()) {
      if (t.quarantined()) {
        out.add(new QuarantinedInterval(t.generation(), t.tokenSpan(), true));
      } else {
        for (TokenInterval q : t.quarantinedIntervals()) {
          out.add(new QuarantinedInterval(t.generation(), q, false));
        }
      }
    }
    out.sort(
        Comparator.comparingLong(QuarantinedInterval::generation)
            .thenComparingLong(q -> q.tokens().fromToken()));
    return out;
  }

  /** Tables quarantined whole. */
  List<TableEntry> wholeTables() {
    return state.liveEntries().stream().filter(TableEntry::quarantined).toList();
  }
}
