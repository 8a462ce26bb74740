package io.frsm.server.client;

import io.frsm.api.InvalidRequestException;
import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.lsm.LsmConfig;

/**
 * Checks a client's arguments before anything is sent or stepped: a bad argument fails with {@link
 * InvalidRequestException} and touches no replica.
 *
 * @param maxKeyBytes the storage engine's key limit ({@link LsmConfig#maxKeySizeBytes()})
 * @param maxValueBytes the storage engine's value limit ({@link LsmConfig#maxValueSizeBytes()})
 */
public record RequestLimits(int maxKeyBytes, int maxValueBytes) {
  /** The storage engine's default limits: 64 KiB keys, 1 MiB values. */
  public static final RequestLimits DEFAULTS = new RequestLimits(64 * 1024, 1024 * 1024);

  public RequestLimits {
    if (maxKeyBytes < 1 || maxValueBytes < 0) {
      throw new IllegalArgumentException("bad limits " + maxKeyBytes + ", " + maxValueBytes);
    }
  }

  public static RequestLimits of(LsmConfig config) {
    return new RequestLimits(config.maxKeySizeBytes(), config.maxValueSizeBytes());
  }

  /** A copy of {@code key} as the core's key type, or InvalidRequestException. */
  public Key key(byte[] key) {
    if (key == null) {
      throw new InvalidRequestException("key must not be null");
    }
    if (key.length == 0) {
      throw new InvalidRequestException("key must not be empty");
    }
    if (key.length > maxKeyBytes) {
      throw new InvalidRequestException(
          "key of " + key.length + " bytes exceeds the limit of " + maxKeyBytes + " bytes");
    }
    Key k = Key.of(key);
    if (RangeTerm.isReserved(k)) {
      throw new InvalidRequestException(
          "keys starting with a NUL byte followed by \"frsm/\" are reserved for frsm itself");
    }
    return k;
  }

  /** A copy of {@code value}, or InvalidRequestException. */
  public byte[] value(byte[] value) {
    if (value == null) {
      throw new InvalidRequestException("value must not be null (use delete to remove a key)");
    }
    if (value.length > maxValueBytes) {
      throw new InvalidRequestException(
          "value of " + value.length + " bytes exceeds the limit of " + maxValueBytes + " bytes");
    }
    return value.clone();
  }

  /**
   * {@code expected} if a CAS or delete may expect it, else InvalidRequestException: the write
   * lands at {@code timestamp + 1}, which must stay within {@link InputBounds#MAX_NUMBER}, as must
   * the epoch (docs/formats/wire.md "Validated ranges"). No key ever reaches such a version.
   */
  public static Version version(Version expected) {
    if (expected == null) {
      throw new InvalidRequestException("expected version must not be null");
    }
    if (expected.epoch() > InputBounds.MAX_NUMBER) {
      throw new InvalidRequestException(
          "expected.epoch " + expected.epoch() + " is above the maximum " + InputBounds.MAX_NUMBER);
    }
    if (expected.timestamp() >= InputBounds.MAX_NUMBER) {
      throw new InvalidRequestException(
          "expected.timestamp "
              + expected.timestamp()
              + " is not below the maximum "
              + InputBounds.MAX_NUMBER
              + " (the write lands at timestamp + 1)");
    }
    return expected;
  }

  /**
   * Checks an operation that arrived over the network (already structurally decoded) against these
   * limits; null if it is acceptable, else the reason to refuse it.
   */
  public String refusal(Operation op) {
    try {
      key(op.key().toByteArray());
      if (op instanceof Operation.Create c) {
        value(c.value());
      } else if (op instanceof Operation.Cas c) {
        value(c.value());
        version(c.expected());
      } else if (op instanceof Operation.Delete d) {
        version(d.expected());
      }
      return null;
    } catch (InvalidRequestException e) {
      return e.getMessage();
    }
  }
}
