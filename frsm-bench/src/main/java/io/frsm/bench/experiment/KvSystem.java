package io.frsm.bench.experiment;

import io.frsm.api.FrsmClient;

/**
 * A running key-value system an experiment measures: frsm, the cRSM baseline or ZooKeeper, each
 * behind the {@link FrsmClient} interface so one workload generator drives them all.
 */
interface KvSystem extends AutoCloseable {

  /** The label in tables and charts, e.g. {@code frsm} or {@code cRSM b128}. */
  String name();

  /** A client for one workload run; the caller closes it. */
  FrsmClient client();

  /**
   * A client for the counter check (increments, then the final read of every counter): it must read
   * linearizably. The workload client by default.
   */
  default FrsmClient checkClient() {
    return client();
  }

  @Override
  void close();
}
