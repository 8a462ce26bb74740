package io.frsm.testkit.sim;

import io.frsm.consensus.core.Input;

/**
 * What the {@link CoordinationService} answers reach: a node's lease agent ({@link LeaseAgents}),
 * in the node's process, after the reply latency. The agents send their requests to the service;
 * the service knows them only as this.
 */
interface AgentAnswers {
  /** An answer reached node {@code node}'s agent: {@code onArrival} handles it. */
  void heard(int node, Runnable onArrival);

  /** The grant of term {@code granted} of {@code range} reached node {@code node}'s agent. */
  void granted(int node, int range, long granted, boolean noEarlierLease);

  /**
   * The answer ({@code answer}) to a renewal of term {@code t} reached node {@code node}'s agent.
   */
  void renewalAnswered(
      int node, int range, long t, boolean checkHolds, long sentMonoNanos, Input answer);
}
