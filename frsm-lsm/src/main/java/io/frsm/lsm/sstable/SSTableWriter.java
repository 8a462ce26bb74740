package io.frsm.lsm.sstable;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes one immutable SSTable (layout: {@link SSTableFormat}, docs/formats/sstable.md).
 *
 * <p>Cells go to {@code <final name>.tmp}; {@link #finish()} writes the metadata sections and the
 * footer, syncs the file, renames it to its final name and syncs the directory, so after a crash
 * the final name either holds a complete table or does not exist. A leftover {@code .tmp} file
 * (crash before finish) is garbage: the engine may delete every name ending in {@link
 * #TEMPORARY_SUFFIX} on start, and {@link #create} deletes a stale one of the same table.
 *
 * <p>Not thread-safe: one thread writes a table.
 */
public final class SSTableWriter implements AutoCloseable {
  public static final String TEMPORARY_SUFFIX = ".tmp";

  /** Blocks are batched into writes of about this size: fewer system calls than one per block. */
  private static final int WRITE_BUFFER_BYTES = 64 * 1024;

  private enum State {
    OPEN,
    FAILED,
    FINISHED,
    CLOSED
  }

  private final FileSystem fs;
  private final Path finalPath;
  private final Path temporaryPath;
  private final SSTableOptions options;
  private final WritableFile file;
  private final BloomFilter bloom;
  private final DataBlockBuilder block = new DataBlockBuilder();
  private final BlockIndex.Builder index = new BlockIndex.Builder();
  private final byte[] writeBuffer = new byte[WRITE_BUFFER_BYTES];
  private int buffered;
  private long position; // bytes of the table emitted so far, buffered or written

  private State state = State.OPEN;
  private boolean renamed;
  private long cellCount;
  private Key firstKey;
  private Key lastKey;
  private long maxWriteTimeMs = Long.MIN_VALUE;
  private boolean hasPurgeMarks;

  private SSTableWriter(
      FileSystem fs,
      Path finalPath,
      Path temporaryPath,
      WritableFile file,
      long expectedKeys,
      SSTableOptions options) {
    this.fs = fs;
    this.finalPath = finalPath;
    this.temporaryPath = temporaryPath;
    this.file = file;
    this.options = options;
    this.bloom = BloomFilter.forKeys(expectedKeys, options.bloomBitsPerKey());
  }

  /**
   * Starts a table that will be published at {@code finalPath}. {@code expectedKeys} sizes the
   * bloom filter: an underestimate raises its false-positive rate, an overestimate wastes space.
   */
  public static SSTableWriter create(
      FileSystem fs, Path finalPath, long expectedKeys, SSTableOptions options) throws IOException {
    Objects.requireNonNull(options, "options");
    if (expectedKeys < 0) {
      throw new IllegalArgumentException("expectedKeys must be >= 0, got " + expectedKeys);
    }
    Path temporary = temporaryPathOf(finalPath);
    fs.delete(temporary);
    WritableFile file = fs.create(temporary);
    return new SSTableWriter(fs, finalPath, temporary, file, expectedKeys, options);
  }

  /** Where a table bound for {@code finalPath} is written before {@link #finish()}. */
  public static Path temporaryPathOf(Path finalPath) {
    return finalPath.resolveSibling(finalPath.getFileName() + TEMPORARY_SUFFIX);
  }

  /**
   * Appends a cell. REQUIRES: its key is strictly above the previous cell's key; otherwise throws
   * {@link IllegalStateException} and the writer is failed (it can only be closed), because a
   * caller that merges out of order would otherwise publish a table missing cells.
   */
  public void add(Cell cell) throws IOException {
    requireOpen();
    Key key = cell.key();
    if (lastKey != null && lastKey.compareTo(key) >= 0) {
      state = State.FAILED;
      throw new IllegalStateException(
          "cells must be added in strictly increasing key order: "
              + key
              + " after "
              + lastKey
              + " in "
              + temporaryPath);
    }
    try {
      block.add(cell);
      bloom.add(key);
      if (firstKey == null) {
        firstKey = key;
      }
      lastKey = key;
      cellCount++;
      maxWriteTimeMs = Math.max(maxWriteTimeMs, cell.writeTimeMs());
      hasPurgeMarks |= cell.purge() != null;
      if (block.sizeBytes() >= options.blockSizeBytes()) {
        flushBlock();
      }
    } catch (IOException | RuntimeException e) {
      state = State.FAILED;
      throw e;
    }
  }

  /**
   * Writes the metadata and footer, makes the table durable and publishes it at its final name.
   * REQUIRES: at least one cell was added (there is no empty table: {@link #close()} to abort).
   */
  public SSTableMetadata finish() throws IOException {
    requireOpen();
    if (cellCount == 0) {
      throw new IllegalStateException(
          "an SSTable holds at least one cell; close() the writer to abort: " + finalPath);
    }
    try {
      flushBlock();
      Footer.Section bloomSection = writeSection(bloom.toSection());
      TableProperties properties =
          new TableProperties(cellCount, maxWriteTimeMs, hasPurgeMarks, firstKey, lastKey);
      Footer.Section propertiesSection = writeSection(properties.toSection());
      Footer.Section indexSection = writeSection(index.toSection());
      Footer footer =
          new Footer(bloomSection, propertiesSection, indexSection, SSTableFormat.FORMAT_VERSION);
      write(footer.toBytes(), 0, SSTableFormat.FOOTER_BYTES);
      flushWriteBuffer();
      file.sync();
      file.close();
      fs.rename(temporaryPath, finalPath);
      renamed = true;
      fs.syncDirectory(finalPath.toAbsolutePath().getParent());
      state = State.FINISHED;
      return new SSTableMetadata(
          finalPath,
          position,
          cellCount,
          firstKey,
          lastKey,
          maxWriteTimeMs,
          hasPurgeMarks,
          SSTableFormat.FORMAT_VERSION);
    } catch (IOException | RuntimeException e) {
      state = State.FAILED;
      throw e;
    }
  }

  /**
   * Bytes of the table so far, the block being built included; after {@link #finish()}, the file
   * size.
   */
  public long bytesWritten() {
    return state == State.OPEN && !block.isEmpty() ? position + block.sizeBytes() : position;
  }

  /**
   * Aborts unless finished: deletes the temporary file (and the final one, if {@link #finish()}
   * failed after the rename), so nothing is published.
   *
   * @throws UncheckedIOException if the files could not be deleted (a leftover temporary file is
   *     harmless; see the class comment)
   */
  @Override
  public void close() {
    if (state == State.FINISHED || state == State.CLOSED) {
      state = State.CLOSED;
      return;
    }
    state = State.CLOSED;
    IOException failure = null;
    try {
      file.close();
    } catch (IOException e) {
      failure = e;
    }
    try {
      fs.delete(temporaryPath);
      if (renamed) {
        fs.delete(finalPath);
        fs.syncDirectory(finalPath.toAbsolutePath().getParent());
      }
    } catch (IOException e) {
      if (failure != null) {
        e.addSuppressed(failure);
      }
      failure = e;
    }
    if (failure != null) {
      throw new UncheckedIOException("aborting SSTable " + finalPath, failure);
    }
  }

  private void requireOpen() {
    if (state != State.OPEN) {
      throw new IllegalStateException("SSTable writer is " + state + ": " + finalPath);
    }
  }

  private void flushBlock() throws IOException {
    if (block.isEmpty()) {
      return;
    }
    block.finish();
    int length = block.sizeBytes();
    index.add(block.lastKey(), position, length);
    write(block.buffer(), 0, length);
    block.reset();
  }

  private Footer.Section writeSection(byte[] section) throws IOException {
    Footer.Section s = new Footer.Section(position, section.length);
    write(section, 0, section.length);
    return s;
  }

  private void write(byte[] bytes, int offset, int length) throws IOException {
    if (length > writeBuffer.length - buffered) {
      flushWriteBuffer();
    }
    if (length >= writeBuffer.length) {
      file.write(ByteBuffer.wrap(bytes, offset, length));
    } else {
      System.arraycopy(bytes, offset, writeBuffer, buffered, length);
      buffered += length;
    }
    position += length;
  }

  private void flushWriteBuffer() throws IOException {
    if (buffered > 0) {
      file.write(ByteBuffer.wrap(writeBuffer, 0, buffered));
      buffered = 0;
    }
  }
}
