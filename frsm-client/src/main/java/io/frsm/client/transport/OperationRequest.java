package io.frsm.client.transport;

import java.util.Objects;

/**
 * A client operation as it travels on a client connection.
 *
 * @param invokedAtMicros τ, the caller's wall clock in microseconds since the epoch when it issued
 *     the operation; 0 when the caller does not give one (a thin client), and then the first node
 *     stamps the arrival time.
 */
public record OperationRequest(ClientOperation operation, long invokedAtMicros) {
  public OperationRequest {
    Objects.requireNonNull(operation, "operation");
    if (invokedAtMicros < 0) {
      throw new IllegalArgumentException("invokedAtMicros must be >= 0, was " + invokedAtMicros);
    }
  }
}
