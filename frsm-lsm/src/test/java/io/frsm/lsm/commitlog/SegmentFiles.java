package io.frsm.lsm.commitlog;

import io.frsm.cell.Cell;
import io.frsm.cell.CellCodec;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/** Builds segment files byte by byte, and replays directories, for replay tests. */
final class SegmentFiles {
  private SegmentFiles() {}

  /** Writes a synced segment: header, the records of {@code cells}, then {@code tail} verbatim. */
  static Path write(FileSystem fs, Path dir, long id, List<Cell> cells, byte[] tail)
      throws IOException {
    return writeBytes(fs, dir, id, bytes(id, cells, tail));
  }

  /** Writes {@code bytes} as a synced segment file with id {@code id}. */
  static Path writeBytes(FileSystem fs, Path dir, long id, byte[] bytes) throws IOException {
    fs.createDirectories(dir);
    Path path = dir.resolve(CommitLogSegment.fileName(id));
    try (WritableFile file = fs.create(path)) {
      file.write(ByteBuffer.wrap(bytes));
      file.sync();
    }
    fs.syncDirectory(dir);
    return path;
  }

  /** The bytes of a segment: header, the records of {@code cells}, then {@code tail} verbatim. */
  static byte[] bytes(long id, List<Cell> cells, byte[] tail) {
    int size = SegmentHeader.BYTES + tail.length;
    for (Cell c : cells) {
      size += RecordFormat.recordBytes(CellCodec.encodedSize(c));
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    new SegmentHeader(0, id).encode(buf);
    CRC32C crc = new CRC32C();
    for (Cell c : cells) {
      RecordFormat.encode(c, CellCodec.encodedSize(c), buf, crc);
    }
    buf.put(tail);
    return buf.array();
  }

  /** The file offset of record {@code index} in a segment written by {@link #write}. */
  static long recordOffset(List<Cell> cells, int index) {
    long offset = SegmentHeader.BYTES;
    for (int i = 0; i < index; i++) {
      offset += RecordFormat.recordBytes(CellCodec.encodedSize(cells.get(i)));
    }
    return offset;
  }

  /** Opens the log on {@code config}, collects what replay returns, closes it again. */
  static List<Cell> replay(FileSystem fs, CommitLogConfig config) throws IOException {
    List<Cell> replayed = new ArrayList<>();
    CommitLog.open(fs, config, new SimpleMeterRegistry(), replayed::add).close();
    return replayed;
  }
}
