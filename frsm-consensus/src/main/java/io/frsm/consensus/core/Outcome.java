package io.frsm.consensus.core;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Optional;

/**
 * How an operation ended. Success records carry the result; failures convert to the frsm-api
 * exception the client sees ({@link Failure#toException()}).
 */
public sealed interface Outcome {

  /** A create or CAS took effect at {@code version}. */
  record Written(Version version) implements Outcome {}

  /** A delete took effect (phase 1: a quorum durably accepted the delete marker). */
  record Deleted(Version version) implements Outcome {}

  /** A get or fence result: the chosen value at its version, or absent. */
  record ReadResult(Optional<Versioned> value) implements Outcome {
    /** What a get answers for a chosen accepted part (null: nothing accepted). */
    public static ReadResult of(io.frsm.cell.AcceptedValue chosen) {
      return new ReadResult(Run.visible(chosen));
    }
  }

  /** A definite failure or an unknown outcome. */
  sealed interface Failure extends Outcome {
    FrsmException toException();
  }

  /** The CAS or delete expected another version. Definite: {@code current} is chosen. */
  record Mismatch(Version expected, Optional<Versioned> current) implements Failure {
    @Override
    public FrsmException toException() {
      return new CasMismatchException(expected, current);
    }
  }

  /** The create found the key present. Definite: {@code current} is chosen. */
  record Exists(Versioned current) implements Failure {
    @Override
    public FrsmException toException() {
      return new KeyExistsException(current);
    }
  }

  /** A round carrying the operation's own value started but did not finish in time. */
  record Unknown(String reason) implements Failure {
    @Override
    public FrsmException toException() {
      return new OutcomeUnknownException(reason);
    }
  }

  /**
   * The operation's own value was never proposed: it did not and will not take effect.
   *
   * <p>{@code rangeMoved}: it was waiting at this node for the key's range lease when this node
   * gave the range up for good in its term (handed it over, or a replica holds a newer term), so
   * another node coordinates the key now. Only the node that ran it sees the flag: it routes the
   * operation again instead of answering (the wire carries the reason only).
   */
  record NotExecuted(String reason, boolean rangeMoved) implements Failure {
    /** Not executed for any other reason: routing it again would end the same way. */
    public NotExecuted(String reason) {
      this(reason, false);
    }

    @Override
    public FrsmException toException() {
      return new NotExecutedException(reason);
    }
  }
}
