package io.frsm.bench.crsm;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * How a shard replica's log lives in its node's {@link io.frsm.lsm.LsmEngine}: one cell per slot,
 * keyed {@code "crsm" shard(1) slot(8, big-endian)}, whose accepted part is the batch accepted
 * under the accepting ballot at the fixed instance (0, 0) — so a re-accept under a higher ballot
 * merges over the older one, as the LSM's join does for frsm's own cells — and one promise-only
 * cell per shard, keyed {@code "crsm" shard(1) 'P'}. The batch encoding is in docs/CRSM.md.
 *
 * <p>DO NOT CHANGE the command type codes: they are written to disk.
 */
public final class LogRecordCodec {
  private static final byte[] PREFIX = {'c', 'r', 's', 'm'};
  private static final byte GET = 1;
  private static final byte CREATE = 2;
  private static final byte CAS = 3;
  private static final byte DELETE = 4;
  private static final byte FENCE = 5;

  /** Shards are numbered 0 ..= this (one byte of the log key). */
  public static final int MAX_SHARD = 255;

  private LogRecordCodec() {}

  /** The cell that makes {@code record} of shard {@code shard} durable. */
  public static Cell toCell(int shard, CrsmEffect.LogRecord record, long nowMs) {
    if (record instanceof CrsmEffect.PromiseRecord p) {
      return Cell.promise(Key.wrap(promiseKey(shard)), p.ballot(), nowMs);
    }
    CrsmEffect.AcceptRecord a = (CrsmEffect.AcceptRecord) record;
    return Cell.accepted(
        Key.wrap(slotKey(shard, a.slot())),
        AcceptedValue.live(0, 0, a.ballot(), encodeBatch(a.batch()), false),
        nowMs);
  }

  public static byte[] slotKey(int shard, long slot) {
    checkShard(shard);
    return ByteBuffer.allocate(PREFIX.length + 9)
        .put(PREFIX)
        .put((byte) shard)
        .putLong(slot)
        .array();
  }

  public static byte[] promiseKey(int shard) {
    checkShard(shard);
    return ByteBuffer.allocate(PREFIX.length + 2)
        .put(PREFIX)
        .put((byte) shard)
        .put((byte) 'P')
        .array();
  }

  private static void checkShard(int shard) {
    if (shard < 0 || shard > MAX_SHARD) {
      throw new IllegalArgumentException("shard must be in [0, " + MAX_SHARD + "], was " + shard);
    }
  }

  /** {@code count(4)} then per command: type(1) origin(4) requestId(8) key, and per type more. */
  public static byte[] encodeBatch(List<ClientCommand> batch) {
    int size = 4;
    for (ClientCommand c : batch) {
      size += encodedSize(c.command());
    }
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putInt(batch.size());
    for (ClientCommand c : batch) {
      Command command = c.command();
      out.put(typeOf(command)).putInt(c.origin()).putLong(c.requestId());
      putBytes(out, command.key());
      if (command instanceof Command.Create create) {
        putBytes(out, create.value());
      } else if (command instanceof Command.Cas cas) {
        putVersion(out, cas.expected());
        putBytes(out, cas.value());
      } else if (command instanceof Command.Delete delete) {
        putVersion(out, delete.expected());
      }
    }
    assert !out.hasRemaining() : "batch size miscounted";
    return out.array();
  }

  /**
   * The batch {@link #encodeBatch} wrote.
   *
   * @throws IllegalArgumentException if {@code bytes} is not such a batch
   */
  public static List<ClientCommand> decodeBatch(byte[] bytes) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      int count = in.getInt();
      if (count < 0 || count > bytes.length) {
        throw new IllegalArgumentException("bad command count " + count);
      }
      List<ClientCommand> out = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        byte type = in.get();
        int origin = in.getInt();
        long requestId = in.getLong();
        byte[] key = getBytes(in);
        Command command =
            switch (type) {
              case GET -> new Command.Get(key);
              case CREATE -> new Command.Create(key, getBytes(in));
              case CAS -> {
                Version expected = getVersion(in);
                yield new Command.Cas(key, expected, getBytes(in));
              }
              case DELETE -> new Command.Delete(key, getVersion(in));
              case FENCE -> new Command.Fence(key);
              default -> throw new IllegalArgumentException("unknown command type " + type);
            };
        out.add(new ClientCommand(origin, requestId, command));
      }
      if (in.hasRemaining()) {
        throw new IllegalArgumentException(in.remaining() + " trailing bytes after the batch");
      }
      return out;
    } catch (java.nio.BufferUnderflowException e) {
      throw new IllegalArgumentException("truncated batch", e);
    }
  }

  private static int encodedSize(Command c) {
    int size = 1 + 4 + 8 + 4 + c.key().length;
    if (c instanceof Command.Create create) {
      size += 4 + create.value().length;
    } else if (c instanceof Command.Cas cas) {
      size += 16 + 4 + cas.value().length;
    } else if (c instanceof Command.Delete) {
      size += 16;
    }
    return size;
  }

  private static byte typeOf(Command c) {
    if (c instanceof Command.Get) {
      return GET;
    } else if (c instanceof Command.Create) {
      return CREATE;
    } else if (c instanceof Command.Cas) {
      return CAS;
    } else if (c instanceof Command.Delete) {
      return DELETE;
    }
    return FENCE;
  }

  private static void putBytes(ByteBuffer out, byte[] b) {
    out.putInt(b.length).put(b);
  }

  private static byte[] getBytes(ByteBuffer in) {
    int length = in.getInt();
    if (length < 0 || length > in.remaining()) {
      throw new IllegalArgumentException("bad length " + length);
    }
    byte[] b = new byte[length];
    in.get(b);
    return b;
  }

  private static void putVersion(ByteBuffer out, Version v) {
    out.putLong(v.epoch()).putLong(v.timestamp());
  }

  private static Version getVersion(ByteBuffer in) {
    long epoch = in.getLong();
    long timestamp = in.getLong();
    if (epoch < 0 || timestamp < 0) {
      throw new IllegalArgumentException("negative version (" + epoch + ", " + timestamp + ")");
    }
    return new Version(epoch, timestamp);
  }
}
