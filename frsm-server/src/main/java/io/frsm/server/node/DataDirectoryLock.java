package io.frsm.server.node;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The node's claim on its directories (docs/FORMATS.md "LOCK"): an operating-system lock on {@code
 * LOCK} in the data directory and in each commit-log directory, held for as long as the node's
 * storage is open. A second process started on the same directories — a duplicated unit file, a
 * copied config — is refused before it opens the engine: two engines on one directory would replay
 * the same commit log, delete each other's unreferenced table files and rewrite one manifest, and a
 * node that restarts after a crash could never know its previous process is gone.
 *
 * <p>The lock is the kernel's ({@link FileChannel#tryLock}), so it ends with the process, {@code
 * kill -9} included: a crash never leaves a stale claim behind, and the file left on disk means
 * nothing by itself. It holds the holder's process id as text, for the refusal's message only.
 */
final class DataDirectoryLock implements AutoCloseable {
  static final String FILE_NAME = "LOCK";

  /** The refusal: another process (or another node in this one) holds a directory. */
  static final class InUseException extends IOException {
    InUseException(String message) {
      super(message);
    }
  }

  private final List<FileChannel> held;

  private DataDirectoryLock(List<FileChannel> held) {
    this.held = held;
  }

  /**
   * Locks every directory of {@code directories} (created if missing; a directory named twice is
   * locked once), or none.
   *
   * @throws InUseException if another process — or another open node of this process — holds one
   * @throws IOException if a directory or its lock file cannot be created or opened
   */
  static DataDirectoryLock acquire(Collection<Path> directories) throws IOException {
    Set<Path> unique = new LinkedHashSet<>();
    for (Path d : directories) {
      unique.add(d.toAbsolutePath().normalize());
    }
    List<FileChannel> held = new ArrayList<>();
    try {
      for (Path dir : unique) {
        held.add(lock(dir));
      }
    } catch (IOException | RuntimeException e) {
      closeAll(held, e);
      throw e;
    }
    return new DataDirectoryLock(List.copyOf(held));
  }

  private static FileChannel lock(Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(FILE_NAME);
    FileChannel channel =
        FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    FileLock lock;
    boolean sameProcess = false;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException thisJvm) {
      lock = null; // a node of this JVM holds it (the kernel would let this process lock it twice)
      sameProcess = true;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      String holder = holder(channel);
      channel.close();
      throw new InUseException(
          "directory "
              + dir
              + " is in use: "
              + (sameProcess ? "another node of this process" : "another process")
              + (holder.isEmpty() ? "" : " (pid " + holder + ")")
              + " holds its "
              + FILE_NAME
              + "; two processes on one data or commit-log directory would corrupt it. Stop that"
              + " process, or give this node directories of its own");
    }
    try {
      byte[] pid = Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.US_ASCII);
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(pid), 0);
    } catch (IOException notWritten) {
      // The pid only helps a refusal's message; the lock holds without it.
    }
    return channel;
  }

  /** The process id the holder wrote, or "" if unreadable or not a number (a hint only). */
  private static String holder(FileChannel channel) {
    try {
      ByteBuffer b = ByteBuffer.allocate(24);
      int n = channel.read(b, 0);
      if (n <= 0) {
        return "";
      }
      String text = new String(b.array(), 0, n, StandardCharsets.US_ASCII).trim();
      return text.matches("[0-9]{1,19}") ? text : "";
    } catch (IOException | RuntimeException unreadable) {
      return "";
    }
  }

  /** Releases every lock (the files stay). */
  @Override
  public void close() {
    closeAll(held, null);
  }

  private static void closeAll(List<FileChannel> channels, Exception into) {
    for (FileChannel c : channels) {
      try {
        c.close(); // releases its lock
      } catch (IOException e) {
        if (into != null) {
          into.addSuppressed(e);
        }
      }
    }
  }
}
