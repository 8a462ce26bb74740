package io.frsm.transport;

import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import io.frsm.consensus.core.IdempotencyHint;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;

/**
 * Maps the client protocol's operations and outcomes ({@link ClientOperation}, {@link
 * ClientOutcome}: the API's value types, all a client knows) to the consensus core's ({@link
 * Operation}, {@link Outcome}) and back. Arrays are shared, not copied: both sides' records own
 * their arrays and never write to them. Adding an operation or outcome means one branch each way
 * here.
 */
public final class CoreOperations {
  private CoreOperations() {}

  public static Operation toCore(ClientOperation op) {
    Key key = Key.wrap(op.key().bytesUnsafe());
    if (op instanceof ClientOperation.Get get) {
      return new Operation.Get(key, get.quorum());
    } else if (op instanceof ClientOperation.Create c) {
      return new Operation.Create(key, c.value(), toCore(c.hint()));
    } else if (op instanceof ClientOperation.Cas c) {
      return new Operation.Cas(key, c.expected(), c.value(), toCore(c.hint()));
    } else if (op instanceof ClientOperation.Delete d) {
      return new Operation.Delete(key, d.expected(), toCore(d.hint()));
    }
    return new Operation.Fence(key);
  }

  private static IdempotencyHint toCore(ClientOperation.Hint hint) {
    return hint == null
        ? null
        : new IdempotencyHint(IdempotencyToken.of(hint.token()), hint.resend());
  }

  private static ClientOperation.Hint toClient(IdempotencyHint hint) {
    return hint == null ? null : new ClientOperation.Hint(hint.token().bytes(), hint.resend());
  }

  public static ClientOperation toClient(Operation op) {
    KeyBytes key = KeyBytes.wrap(op.key().bytesUnsafe());
    if (op instanceof Operation.Get get) {
      return new ClientOperation.Get(key, get.quorum());
    } else if (op instanceof Operation.Create c) {
      return new ClientOperation.Create(key, c.value(), toClient(c.hint()));
    } else if (op instanceof Operation.Cas c) {
      return new ClientOperation.Cas(key, c.expected(), c.value(), toClient(c.hint()));
    } else if (op instanceof Operation.Delete d) {
      return new ClientOperation.Delete(key, d.expected(), toClient(d.hint()));
    }
    return new ClientOperation.Fence(key);
  }

  /**
   * The outcome as a client sees it. A {@code NotExecuted} loses its {@code rangeMoved} flag: only
   * the node that ran the operation acts on it (docs/formats/wire.md carries the reason only).
   */
  public static ClientOutcome toClient(Outcome outcome) {
    if (outcome instanceof Outcome.ReadResult r) {
      return new ClientOutcome.ReadResult(r.value());
    } else if (outcome instanceof Outcome.Written w) {
      return new ClientOutcome.Written(w.version());
    } else if (outcome instanceof Outcome.Deleted d) {
      return new ClientOutcome.Deleted(d.version());
    } else if (outcome instanceof Outcome.Exists e) {
      return new ClientOutcome.Exists(e.current());
    } else if (outcome instanceof Outcome.Mismatch m) {
      return new ClientOutcome.Mismatch(m.expected(), m.current());
    } else if (outcome instanceof Outcome.Unknown u) {
      return new ClientOutcome.Unknown(u.reason());
    }
    return new ClientOutcome.NotExecuted(((Outcome.NotExecuted) outcome).reason());
  }

  public static Outcome toCore(ClientOutcome outcome) {
    if (outcome instanceof ClientOutcome.ReadResult r) {
      return new Outcome.ReadResult(r.value());
    } else if (outcome instanceof ClientOutcome.Written w) {
      return new Outcome.Written(w.version());
    } else if (outcome instanceof ClientOutcome.Deleted d) {
      return new Outcome.Deleted(d.version());
    } else if (outcome instanceof ClientOutcome.Exists e) {
      return new Outcome.Exists(e.current());
    } else if (outcome instanceof ClientOutcome.Mismatch m) {
      return new Outcome.Mismatch(m.expected(), m.current());
    } else if (outcome instanceof ClientOutcome.Unknown u) {
      return new Outcome.Unknown(u.reason());
    }
    return new Outcome.NotExecuted(((ClientOutcome.NotExecuted) outcome).reason());
  }
}
