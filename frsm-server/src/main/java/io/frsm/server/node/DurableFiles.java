package io.frsm.server.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Small files of a node's data directory that must survive a crash whole or not at all (the boot
 * counter, hand-off base records): written aside, forced, renamed over the old file atomically,
 * then the directory forced, so that after a crash the file holds either its old bytes or its new
 * ones — never a mix, and never a rename the directory forgot.
 */
final class DurableFiles {
  private DurableFiles() {}

  /**
   * Replaces {@code file} by {@code bytes} as the class comment says, through {@code temp} (in the
   * same directory; left behind only by a crash, for the caller to ignore at start).
   *
   * @throws IOException if any step fails, or the file system cannot rename atomically
   */
  static void replace(Path file, Path temp, byte[] bytes) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            temp,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ByteBuffer buffer = ByteBuffer.wrap(bytes);
      while (buffer.hasRemaining()) {
        ch.write(buffer);
      }
      ch.force(true);
    }
    Path directory = file.toAbsolutePath().getParent();
    try {
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("the data directory must support atomic renames: " + directory, e);
    }
    forceDirectory(directory);
  }

  /** Forces {@code directory}'s entries (a rename or a delete in it) to the device. */
  static void forceDirectory(Path directory) throws IOException {
    try (FileChannel ch = FileChannel.open(directory, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
