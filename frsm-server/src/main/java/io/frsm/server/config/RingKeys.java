package io.frsm.server.config;

import java.util.List;

/** The keys of the {@code ring} section: how ranges are cut and replicated; fixed at formation. */
public final class RingKeys {
  private RingKeys() {}

  public static final ConfigKey<Integer> VNODES =
      ConfigKey.of("ring.vnodes", ValueType.INTEGER, 16)
          .range(1, 4096)
          .doc("tokens per node on the ring");

  /**
   * The largest replication factor accepted: every round of a range goes to up to this many nodes,
   * and larger replica sets have never been run.
   */
  public static final int MAX_REPLICATION_FACTOR = 9;

  public static final ConfigKey<Integer> REPLICATION_FACTOR =
      ConfigKey.of("ring.replicationFactor", ValueType.INTEGER, 3)
          .range(1, MAX_REPLICATION_FACTOR)
          .doc("replicas per range; an operation needs a majority of them");

  static final List<ConfigKey<?>> ALL = List.of(VNODES, REPLICATION_FACTOR);
}
