package io.frsm.lsm.io;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;

/** Positional reads of an immutable or append-only file. Thread-safe. */
public interface ReadableFile extends Closeable {

  /**
   * Fills {@code dst}'s remaining bytes from {@code position}.
   *
   * @throws java.io.EOFException if the file ends first
   */
  void readFully(ByteBuffer dst, long position) throws IOException;

  long size() throws IOException;
}
