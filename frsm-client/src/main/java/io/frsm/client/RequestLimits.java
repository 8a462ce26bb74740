package io.frsm.client;

import io.frsm.api.InvalidRequestException;
import io.frsm.api.Version;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.WireFormat;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Checks a client's arguments before anything is sent or stepped: a bad argument fails with {@link
 * InvalidRequestException} and touches no replica.
 *
 * @param maxKeyBytes the storage engine's key limit (the node's {@code lsm.maxKeySizeBytes})
 * @param maxValueBytes the storage engine's value limit (the node's {@code lsm.maxValueSizeBytes})
 */
public record RequestLimits(int maxKeyBytes, int maxValueBytes) {
  /** The storage engine's default limits: 64 KiB keys, 1 MiB values. */
  public static final RequestLimits DEFAULTS = new RequestLimits(64 * 1024, 1024 * 1024);

  /**
   * Keys that begin with these bytes hold frsm's own state (a range's persisted term). DO NOT
   * CHANGE: it is the consensus core's {@code RangeTerm} prefix, duplicated so that the client
   * needs no core; the node's tests pin the two together.
   */
  public static final byte[] RESERVED_KEY_PREFIX =
      "\0frsm/range-term/".getBytes(StandardCharsets.US_ASCII);

  public RequestLimits {
    if (maxKeyBytes < 1 || maxValueBytes < 0) {
      throw new IllegalArgumentException("bad limits " + maxKeyBytes + ", " + maxValueBytes);
    }
  }

  /** A copy of {@code key}, or InvalidRequestException. */
  public KeyBytes key(byte[] key) {
    checkKey(key);
    return KeyBytes.of(key);
  }

  /** InvalidRequestException unless {@code key} may be a key; reads it, copies nothing. */
  private void checkKey(byte[] key) {
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
    int prefix = RESERVED_KEY_PREFIX.length;
    if (key.length >= prefix && Arrays.equals(key, 0, prefix, RESERVED_KEY_PREFIX, 0, prefix)) {
      throw new InvalidRequestException(
          "keys starting with a NUL byte followed by \"frsm/\" are reserved for frsm itself");
    }
  }

  /** A copy of {@code value}, or InvalidRequestException. */
  public byte[] value(byte[] value) {
    checkValue(value);
    return value.clone();
  }

  /** InvalidRequestException unless {@code value} may be a value; reads it, copies nothing. */
  private void checkValue(byte[] value) {
    if (value == null) {
      throw new InvalidRequestException("value must not be null (use delete to remove a key)");
    }
    if (value.length > maxValueBytes) {
      throw new InvalidRequestException(
          "value of " + value.length + " bytes exceeds the limit of " + maxValueBytes + " bytes");
    }
  }

  /**
   * {@code expected} if a CAS or delete may expect it, else InvalidRequestException: the write
   * lands at {@code timestamp + 1}, which must stay within {@link WireFormat#MAX_NUMBER}, as must
   * the epoch (docs/formats/wire.md "Validated ranges"). No key ever reaches such a version.
   */
  public static Version version(Version expected) {
    if (expected == null) {
      throw new InvalidRequestException("expected version must not be null");
    }
    if (expected.epoch() > WireFormat.MAX_NUMBER) {
      throw new InvalidRequestException(
          "expected.epoch " + expected.epoch() + " is above the maximum " + WireFormat.MAX_NUMBER);
    }
    if (expected.timestamp() >= WireFormat.MAX_NUMBER) {
      throw new InvalidRequestException(
          "expected.timestamp "
              + expected.timestamp()
              + " is not below the maximum "
              + WireFormat.MAX_NUMBER
              + " (the write lands at timestamp + 1)");
    }
    return expected;
  }

  /**
   * Checks an operation that arrived over the network (already structurally decoded) against these
   * limits; null if it is acceptable, else the reason to refuse it.
   */
  public String refusal(ClientOperation op) {
    // Only checks: the operation keeps its own arrays, so nothing here is copied (a node checks
    // every request it is sent; a copy of the key and the value each time was garbage, issue 26).
    try {
      checkKey(op.key().bytesUnsafe());
      if (op instanceof ClientOperation.Create c) {
        checkValue(c.value());
      } else if (op instanceof ClientOperation.Cas c) {
        checkValue(c.value());
        version(c.expected());
      } else if (op instanceof ClientOperation.Delete d) {
        version(d.expected());
      }
      return null;
    } catch (InvalidRequestException e) {
      return e.getMessage();
    }
  }
}
