package io.frsm.server.node;

import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client operations one core was handed and has not answered yet, by the request id the core
 * knows them by, and how many were admitted and are still open (queued or running). The map is the
 * core loop's own; the count is read on any thread.
 */
final class OpenOperations {
  /** A client operation on its way to the core, and where its answer goes. */
  record Call(Operation operation, long invokedAtMicros, CompletableFuture<CoreAnswer> result) {}

  /** Keyed by the primitive id: no boxed Long per operation (issue 26). Loop thread only. */
  private final LongObjectMap<Call> running = new LongObjectHashMap<>();

  private long nextRequestId; // loop thread only
  private final AtomicInteger open = new AtomicInteger();

  /** A call was admitted (any thread); it is open until answered or failed. */
  void admitted() {
    open.incrementAndGet();
  }

  /** The core takes {@code call} now: its request id. Loop thread only. */
  long run(Call call) {
    long requestId = ++nextRequestId;
    running.put(requestId, call);
    return requestId;
  }

  /** The core (or the driver for it) answered request {@code requestId}. Loop thread only. */
  void answer(long requestId, CoreAnswer answer) {
    Call call = running.remove(requestId);
    if (call != null) {
      open.decrementAndGet();
      call.result().complete(answer);
    }
  }

  /**
   * The loop ended: every running call fails as its kind allows (a mutation's outcome is unknown).
   * Only once nobody else touches the map: the loop has ended, or is ending on this very thread.
   */
  void failRunning(String reason) {
    for (Call call : running.values()) {
      call.result().complete(CoreAnswer.of(lost(call.operation(), reason)));
    }
    running.clear();
  }

  /** A call the core never saw fails as not executed. */
  static void failQueued(Call call, String reason) {
    call.result().complete(CoreAnswer.of(new Outcome.NotExecuted(reason)));
  }

  /** Nothing is open any more (the loop ended and every call was answered). */
  void closed() {
    open.set(0);
  }

  /** Calls admitted and not yet answered. */
  int count() {
    return open.get();
  }

  /** What a call that may have run is answered when its fate is unknown. */
  static Outcome lost(Operation operation, String reason) {
    return operation.mutates() ? new Outcome.Unknown(reason) : new Outcome.NotExecuted(reason);
  }
}
