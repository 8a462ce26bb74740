package io.frsm.lsm.io;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The only way the LSM touches files. Production uses {@link NioFileSystem}; tests use a faulty
 * in-memory implementation that loses unsynced data on a simulated crash, corrupts bytes, or runs
 * out of space.
 *
 * <p>Durability contract (what a crash may lose): bytes written to a file survive only after {@link
 * WritableFile#sync()}; a created, renamed or deleted directory entry survives only after {@link
 * #syncDirectory(Path)} of its parent.
 */
public interface FileSystem {

  /** Creates a new empty file for writing. Fails if it exists. */
  WritableFile create(Path path) throws IOException;

  /** Opens an existing file for positional reads. */
  ReadableFile openRead(Path path) throws IOException;

  boolean exists(Path path);

  long size(Path path) throws IOException;

  /** The entries of {@code dir}, sorted by name. Empty if the directory does not exist. */
  List<Path> list(Path dir) throws IOException;

  void createDirectories(Path dir) throws IOException;

  /** Deletes a file if it exists. */
  void delete(Path path) throws IOException;

  /** Atomically renames {@code source} to {@code target}, replacing it. */
  void rename(Path source, Path target) throws IOException;

  /** Makes the creations, renames and deletions in {@code dir} durable. */
  void syncDirectory(Path dir) throws IOException;
}
