package io.frsm.lsm;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Stored bytes failed a checksum or could not be decoded. Always names the file and the byte offset
 * of the damaged record or block, so an operator can find it. Data that raised this is never
 * returned to a caller.
 */
public class CorruptionException extends IOException {
  private final Path file;
  private final long offset;

  public CorruptionException(Path file, long offset, String what) {
    super(what + " in " + file + " at offset " + offset);
    this.file = file;
    this.offset = offset;
  }

  public CorruptionException(Path file, long offset, String what, Throwable cause) {
    super(what + " in " + file + " at offset " + offset, cause);
    this.file = file;
    this.offset = offset;
  }

  public Path file() {
    return file;
  }

  public long offset() {
    return offset;
  }
}
