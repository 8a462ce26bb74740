package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The framing of one commit-log record (docs/formats/commitlog.md):
 *
 * <pre>
 *   u32 payloadLength   1 .. MAX_PAYLOAD_BYTES
 *   u32 crc32c          CRC32C over the 4 length bytes, then the payload
 *   payload             CellCodec.encode(cell)
 * </pre>
 *
 * Big-endian. The checksum covers the length so that a damaged length is caught instead of sending
 * the reader to a wrong offset. Writer ({@link CommitLogStripe}) and reader ({@link
 * CommitLogReader}) both go through this class, so the two cannot drift apart.
 */
final class RecordFormat {
  /** DO NOT CHANGE: written to disk. */
  static final int HEADER_BYTES = 8;

  /**
   * DO NOT CHANGE: replay rejects longer payloads as damage, so lowering it would reject records
   * already on disk. Bounds the reader's allocation when a length field is damaged.
   */
  static final int MAX_PAYLOAD_BYTES = 16 << 20;

  private RecordFormat() {}

  static int recordBytes(int payloadBytes) {
    return HEADER_BYTES + payloadBytes;
  }

  static boolean isPlausiblePayloadLength(int payloadBytes) {
    return payloadBytes > 0 && payloadBytes <= MAX_PAYLOAD_BYTES;
  }

  /**
   * Appends the record of {@code cell} at {@code out}'s position. REQUIRES: {@code payloadBytes ==
   * CellCodec.encodedSize(cell)} and {@code out} has {@link #recordBytes} bytes remaining. Leaves
   * the limit unchanged; allocates nothing.
   */
  static void encode(Cell cell, int payloadBytes, ByteBuffer out, CRC32C crc) {
    int start = out.position();
    int limit = out.limit();
    out.putInt(payloadBytes);
    out.putInt(0); // checksum, filled in below once the payload is in place
    CellCodec.encode(cell, out);
    int end = out.position();
    assert end - start == recordBytes(payloadBytes) : "encodedSize disagrees with encode";
    crc.reset();
    out.limit(start + 4).position(start);
    crc.update(out);
    out.limit(end).position(start + HEADER_BYTES);
    crc.update(out);
    out.limit(limit).position(end);
    out.putInt(start + 4, (int) crc.getValue());
  }

  /** The checksum a record at {@code start} of {@code array} with that payload length must have. */
  static int checksum(byte[] array, int start, int payloadBytes, CRC32C crc) {
    crc.reset();
    crc.update(array, start, 4);
    crc.update(array, start + HEADER_BYTES, payloadBytes);
    return (int) crc.getValue();
  }

  /**
   * The checksum a record would have if its length field said {@code payloadBytes}, for the record
   * at {@code start} of {@code array}: how replay tells a damaged length field from a cut-short
   * write.
   */
  static int checksumWithLength(byte[] array, int start, int payloadBytes, CRC32C crc) {
    crc.reset();
    for (int shift = 24; shift >= 0; shift -= 8) {
      crc.update(payloadBytes >>> shift);
    }
    crc.update(array, start + HEADER_BYTES, payloadBytes);
    return (int) crc.getValue();
  }
}
