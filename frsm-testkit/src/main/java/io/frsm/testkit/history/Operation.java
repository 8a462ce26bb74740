package io.frsm.testkit.history;

import java.util.Objects;

/**
 * One client operation on one key: what was asked, what came back, and when (nanoseconds on the
 * recorder's clock). The operation took effect, if at all, at some instant in {@code [callNanos,
 * returnNanos]}; an {@link Output.Unknown} one may take effect at any instant after its call.
 */
public record Operation(
    long client,
    OperationKind kind,
    Bytes key,
    Input input,
    Output output,
    long callNanos,
    long returnNanos) {

  public Operation {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(input, "input");
    Objects.requireNonNull(output, "output");
    input.checkFits(kind);
    if (!output.fits(kind)) {
      throw new IllegalArgumentException(
          kind.jsonName() + " cannot end with " + output.getClass().getSimpleName());
    }
    if (returnNanos < callNanos) {
      throw new IllegalArgumentException(
          "returned at " + returnNanos + " ns before its call at " + callNanos + " ns");
    }
  }

  @Override
  public String toString() {
    StringBuilder s = new StringBuilder();
    s.append("client ").append(client).append(' ').append(kind.jsonName()).append('(');
    s.append(key);
    input.expected().ifPresent(v -> s.append(", expected ").append(v));
    input.value().ifPresent(v -> s.append(", ").append(v));
    s.append(") -> ").append(describe(output));
    s.append(" [").append(callNanos).append(", ").append(returnNanos).append("] ns");
    return s.toString();
  }

  private static String describe(Output output) {
    if (output instanceof Output.Found f) {
      return "ok " + f.current();
    }
    if (output instanceof Output.Absent) {
      return "ok absent";
    }
    if (output instanceof Output.Written w) {
      return "ok " + w.version();
    }
    if (output instanceof Output.Deleted) {
      return "ok";
    }
    if (output instanceof Output.KeyExists k) {
      return "keyExists " + k.current();
    }
    if (output instanceof Output.CasMismatch c) {
      return "casMismatch " + c.current().map(Object::toString).orElse("absent");
    }
    return output instanceof Output.Unknown ? "unknown" : "notExecuted";
  }
}
