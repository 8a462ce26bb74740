package io.frsm.bench.crsm;

/**
 * The tunables of one shard replica. Times are in ticks (the driver decides a tick's length; the
 * cluster uses {@link CrsmCluster#TICK_MILLIS}).
 *
 * @param nodeCount replicas of the shard (3 in every experiment); quorum is a majority
 * @param maxBatch most commands one log slot carries (the paper's batch: 1, 64 or 128)
 * @param maxSlotsInFlight most slots the leader has proposed and not yet seen chosen. New commands
 *     wait in the leader's queue meanwhile, which is what forms batches: with 1 this is the paper's
 *     "batch until the prior write completes" (§2.2)
 * @param readMode how gets are served
 * @param heartbeatTicks the leader's idle interval between heartbeats (they carry the commit point)
 * @param retransmitTicks an unacknowledged Accept, Prepare or Fetch is resent after this
 * @param electionTimeoutTicks a follower that heard nothing from a leader for this long (plus a
 *     random part of up to the same again) starts phase 1; 0 disables elections (only an explicit
 *     {@link CrsmInput.Campaign} starts one)
 * @param fetchMaxSlots most chosen slots one Fetch answer carries to a lagging replica
 */
public record CrsmConfig(
    int nodeCount,
    int maxBatch,
    int maxSlotsInFlight,
    ReadMode readMode,
    int heartbeatTicks,
    int retransmitTicks,
    int electionTimeoutTicks,
    int fetchMaxSlots) {

  public CrsmConfig {
    if (nodeCount < 1 || nodeCount > 31) {
      throw new IllegalArgumentException("nodeCount must be in [1, 31], was " + nodeCount);
    }
    if (maxBatch < 1 || maxSlotsInFlight < 1 || fetchMaxSlots < 1) {
      throw new IllegalArgumentException(
          "maxBatch, maxSlotsInFlight and fetchMaxSlots must be >= 1");
    }
    if (heartbeatTicks < 1 || retransmitTicks < 1 || electionTimeoutTicks < 0) {
      throw new IllegalArgumentException("bad tick intervals");
    }
    if (readMode == null) {
      throw new IllegalArgumentException("readMode is required");
    }
  }

  /** Three replicas, the benchmark's defaults, with {@code maxBatch} commands per slot. */
  public static CrsmConfig benchmark(int maxBatch) {
    return new CrsmConfig(3, maxBatch, 4, ReadMode.LEADER, 5, 20, 300, 64);
  }

  public int quorum() {
    return nodeCount / 2 + 1;
  }

  public CrsmConfig withMaxSlotsInFlight(int slots) {
    return new CrsmConfig(
        nodeCount,
        maxBatch,
        slots,
        readMode,
        heartbeatTicks,
        retransmitTicks,
        electionTimeoutTicks,
        fetchMaxSlots);
  }

  public CrsmConfig withReadMode(ReadMode mode) {
    return new CrsmConfig(
        nodeCount,
        maxBatch,
        maxSlotsInFlight,
        mode,
        heartbeatTicks,
        retransmitTicks,
        electionTimeoutTicks,
        fetchMaxSlots);
  }
}
