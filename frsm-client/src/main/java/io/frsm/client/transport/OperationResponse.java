package io.frsm.client.transport;

import java.util.Objects;

/** The answer to an {@link OperationRequest}. */
public sealed interface OperationResponse {

  /** The operation ran to an outcome (success, definite failure, unknown, or not executed). */
  public record Completed(ClientOutcome outcome) implements OperationResponse {
    public Completed {
      Objects.requireNonNull(outcome, "outcome");
    }
  }

  /** The request was refused before anything was done (for example an empty key). */
  public record Invalid(String reason) implements OperationResponse {
    public Invalid {
      Objects.requireNonNull(reason, "reason");
    }
  }

  /** The receiver does not lead the key's range: repeat the request at the leader. */
  public record Redirect(String leaderHost, int leaderPort) implements OperationResponse {
    public Redirect {
      if (leaderHost == null || leaderHost.isEmpty()) {
        throw new IllegalArgumentException("redirect needs a leader host");
      }
      if (leaderPort < 1 || leaderPort > 65_535) {
        throw new IllegalArgumentException("leader port out of range: " + leaderPort);
      }
    }
  }
}
