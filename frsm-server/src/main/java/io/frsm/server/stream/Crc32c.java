package io.frsm.server.stream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/** CRC32C (Castagnoli) of chunks and whole files, as the stream protocol carries them. */
final class Crc32c {
  private Crc32c() {}

  static int of(byte[] data, int offset, int length) {
    CRC32C crc = new CRC32C();
    crc.update(data, offset, length);
    return (int) crc.getValue();
  }

  static int of(ByteBuffer data) {
    CRC32C crc = new CRC32C();
    crc.update(data.duplicate());
    return (int) crc.getValue();
  }

  /** The checksum of the file's first {@code length} bytes, read back from disk. */
  static int ofFile(Path file, long length) throws IOException {
    CRC32C crc = new CRC32C();
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
      long position = 0;
      while (position < length) {
        buffer.clear();
        buffer.limit((int) Math.min(buffer.capacity(), length - position));
        int n = in.read(buffer, position);
        if (n < 0) {
          throw new IOException(file + " ends at " + position + " bytes, expected " + length);
        }
        buffer.flip();
        crc.update(buffer);
        position += n;
      }
    }
    return (int) crc.getValue();
  }
}
