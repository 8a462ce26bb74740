package io.frsm.server.node;

import io.frsm.server.membership.QuarantineRepairAgent;

/** docs/OPERATIONS.md "Metrics": the repairs of this node's quarantined storage. */
final class RepairMeters {
  private RepairMeters() {}

  /** Registers the agent's meters and starts it. */
  static QuarantineRepairAgent started(QuarantineRepairAgent agent, NodeMetrics metrics) {
    String name = "frsm.repair";
    metrics.counter(
        name,
        "repairs of this node's quarantined storage it requested",
        "event",
        "started",
        agent::repairsStarted);
    metrics.counter(
        name,
        "repairs of this node seen to the end (a voter again)",
        "event",
        "finished",
        agent::repairsFinished);
    metrics.counter(
        name,
        "quarantined tables released after a repair",
        "event",
        "table_released",
        agent::tablesReleased);
    agent.start();
    return agent;
  }
}
