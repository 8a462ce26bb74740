package io.frsm.client.transport;

import io.frsm.api.CasMismatchException;
import io.frsm.api.FrsmException;
import io.frsm.api.KeyExistsException;
import io.frsm.api.NotExecutedException;
import io.frsm.api.OutcomeUnknownException;
import io.frsm.api.Version;
import io.frsm.api.Versioned;
import java.util.Objects;
import java.util.Optional;

/**
 * How a {@link ClientOperation} ended, as the client protocol carries it. Successes carry the
 * result; failures convert to the frsm-api exception the caller sees ({@link
 * Failure#toException()}).
 */
public sealed interface ClientOutcome {

  /** A create or CAS took effect at {@code version}. */
  public record Written(Version version) implements ClientOutcome {
    public Written {
      Objects.requireNonNull(version, "version");
    }
  }

  /** A delete took effect (phase 1: a quorum durably accepted the delete marker). */
  public record Deleted(Version version) implements ClientOutcome {
    public Deleted {
      Objects.requireNonNull(version, "version");
    }
  }

  /** A get or fence result: the chosen value at its version, or absent. */
  public record ReadResult(Optional<Versioned> value) implements ClientOutcome {
    public ReadResult {
      Objects.requireNonNull(value, "value");
    }
  }

  /** A definite failure or an unknown outcome. */
  public sealed interface Failure extends ClientOutcome {
    FrsmException toException();
  }

  /** The CAS or delete expected another version. Definite: {@code current} is chosen. */
  public record Mismatch(Version expected, Optional<Versioned> current) implements Failure {
    public Mismatch {
      Objects.requireNonNull(expected, "expected");
      Objects.requireNonNull(current, "current");
    }

    @Override
    public FrsmException toException() {
      return new CasMismatchException(expected, current);
    }
  }

  /** The create found the key present. Definite: {@code current} is chosen. */
  public record Exists(Versioned current) implements Failure {
    public Exists {
      Objects.requireNonNull(current, "current");
    }

    @Override
    public FrsmException toException() {
      return new KeyExistsException(current);
    }
  }

  /** A round carrying the operation's own value started but did not finish in time. */
  public record Unknown(String reason) implements Failure {
    @Override
    public FrsmException toException() {
      return new OutcomeUnknownException(reason);
    }
  }

  /** The operation's own value was never proposed: it did not and will not take effect. */
  public record NotExecuted(String reason) implements Failure {
    @Override
    public FrsmException toException() {
      return new NotExecutedException(reason);
    }
  }
}
