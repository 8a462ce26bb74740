package io.frsm.testkit.history;

import io.frsm.api.Version;
import java.util.Optional;

/** Terse constructors for hand-written test histories; every key is "k" unless named. */
final class Ops {
  static final String KEY = "k";

  private Ops() {}

  static Version v(long epoch, long timestamp) {
    return new Version(epoch, timestamp);
  }

  static Output found(String value, long epoch, long timestamp) {
    return new Output.Found(new VersionedValue(Bytes.utf8(value), v(epoch, timestamp)));
  }

  static Output written(long epoch, long timestamp) {
    return new Output.Written(v(epoch, timestamp));
  }

  static Output keyExists(String value, long epoch, long timestamp) {
    return new Output.KeyExists(new VersionedValue(Bytes.utf8(value), v(epoch, timestamp)));
  }

  static Output mismatch(String value, long epoch, long timestamp) {
    return new Output.CasMismatch(
        Optional.of(new VersionedValue(Bytes.utf8(value), v(epoch, timestamp))));
  }

  static Output mismatchAbsent() {
    return new Output.CasMismatch(Optional.empty());
  }

  static Operation get(long client, long call, long ret, Output output) {
    return op(client, OperationKind.GET, Input.none(), output, call, ret);
  }

  static Operation create(long client, String value, long call, long ret, Output output) {
    return op(client, OperationKind.CREATE, Input.create(Bytes.utf8(value)), output, call, ret);
  }

  static Operation cas(
      long client, Version expected, String value, long call, long ret, Output output) {
    return op(client, OperationKind.CAS, Input.cas(expected, Bytes.utf8(value)), output, call, ret);
  }

  static Operation delete(long client, Version expected, long call, long ret, Output output) {
    return op(client, OperationKind.DELETE, Input.delete(expected), output, call, ret);
  }

  static Operation fence(long client, long call, long ret, Output output) {
    return op(client, OperationKind.FENCE, Input.none(), output, call, ret);
  }

  static Operation op(
      long client, OperationKind kind, Input input, Output output, long call, long ret) {
    return new Operation(client, kind, Bytes.utf8(KEY), input, output, call, ret);
  }

  static Operation onKey(String key, Operation op) {
    return new Operation(
        op.client(),
        op.kind(),
        Bytes.utf8(key),
        op.input(),
        op.output(),
        op.callNanos(),
        op.returnNanos());
  }
}
