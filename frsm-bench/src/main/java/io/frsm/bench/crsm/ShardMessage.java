package io.frsm.bench.crsm;

import java.util.Objects;

/** What one cRSM node sends another: a message between the two replicas of {@code shard}. */
public record ShardMessage(int shard, CrsmMessage message) {
  public ShardMessage {
    if (shard < 0 || shard > LogRecordCodec.MAX_SHARD) {
      throw new IllegalArgumentException(
          "shard must be in [0, " + LogRecordCodec.MAX_SHARD + "], was " + shard);
    }
    Objects.requireNonNull(message, "message");
  }
}
