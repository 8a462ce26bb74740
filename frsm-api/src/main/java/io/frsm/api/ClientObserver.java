package io.frsm.api;

/**
 * Hears what a client does, for the host service's metrics ({@link FrsmClientBuilder#observer}).
 * frsm keeps no meters of its own in a client and registers nothing globally; {@code
 * io.frsm.client.micrometer.MicrometerObserver} (frsm-client, with Micrometer on the class path)
 * records these as meters in a {@code MeterRegistry} the service passes.
 *
 * <p>Called on the client's threads (network event loops included): implementations must be
 * thread-safe, fast and must not block or throw (a throw is caught and ignored).
 */
public interface ClientObserver {
  /** Observes nothing. */
  ClientObserver NONE = new ClientObserver() {};

  /**
   * A call ended.
   *
   * @param operation {@code get}, {@code create}, {@code cas}, {@code delete} or {@code fence} (a
   *     get in {@link ReadMode#FENCED} is a {@code fence})
   * @param outcome {@code ok}, {@code mismatch} (CAS or delete), {@code exists} (create), {@code
   *     unknown} ({@link OutcomeUnknownException}), {@code not_executed} ({@link
   *     NotExecutedException}), {@code invalid} ({@link InvalidRequestException}) or {@code error}
   * @param nanos from the call to its end, queueing behind the key's earlier calls included
   */
  default void operationEnded(String operation, String outcome, long nanos) {}

  /**
   * The client's view of the cluster changed: a node told it a new topology.
   *
   * @param liveNodes the members the view shows live
   */
  default void topologyChanged(int liveNodes) {}
}
