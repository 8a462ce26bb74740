package io.frsm.lsm.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** An append-only file. Not thread-safe: one writer at a time. */
public interface WritableFile extends Closeable {

  /** Appends every remaining byte of {@code src}. */
  void write(ByteBuffer src) throws IOException;

  /** Makes every byte written so far durable (fdatasync). */
  void sync() throws IOException;

  /** Bytes written so far. */
  long position();

  /**
   * Writes zeros from the end of the file up to {@code sizeBytes} and syncs them with the file's
   * size (fsync), leaving {@link #position()} where it was: later writes overwrite blocks that are
   * already allocated, so that a sync after them persists data only, not a new size and new blocks.
   * Returns false if this file system cannot (the default: it does nothing, and the file grows with
   * its writes, which is correct, only slower to sync).
   */
  default boolean preallocate(long sizeBytes) throws IOException {
    return false;
  }
}
