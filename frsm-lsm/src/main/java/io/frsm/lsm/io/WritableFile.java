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
}
