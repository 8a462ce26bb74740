package io.frsm.server.node;

import io.frsm.api.FrsmClient;
import io.frsm.client.SessionCounters;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The embedded clients a node handed out and that are still open: each runs its operations through
 * the node's {@link OperationRouter}, and the node closes those left open when it stops.
 * Thread-safe.
 */
final class EmbeddedClients {
  private final OperationRouter router;
  private final long createSettleNanos;
  private final SessionCounters sessions;
  private final List<EmbeddedClient> open = new CopyOnWriteArrayList<>();

  /**
   * @param createSettleNanos {@code T + 2ε}: how long a key is fenced after a create whose outcome
   *     is unknown
   * @param sessions where the clients' sessions count what they did (the node's meters)
   */
  EmbeddedClients(OperationRouter router, long createSettleNanos, SessionCounters sessions) {
    this.router = router;
    this.createSettleNanos = createSettleNanos;
    this.sessions = sessions;
  }

  /** A new client with its own session ordering; it leaves this set when closed. */
  FrsmClient open() {
    EmbeddedClient[] self = new EmbeddedClient[1];
    EmbeddedClient client =
        new EmbeddedClient(
            router.limits(),
            createSettleNanos,
            sessions,
            router::route,
            () -> open.remove(self[0]));
    self[0] = client;
    open.add(client);
    return client;
  }

  /** Closes every client still open (operations already with the node run to their end). */
  void closeAll() {
    open.forEach(EmbeddedClient::close);
  }
}
