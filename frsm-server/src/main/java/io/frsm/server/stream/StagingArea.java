package io.frsm.server.stream;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The receiver's directory for one copy (source node and range), under the data directory: the
 * snapshot's files as they arrive, and a {@code PROGRESS} file naming the snapshot, its manifest
 * and each file's verified, durable prefix (docs/formats/streaming.md "Staging"). {@code PROGRESS}
 * is replaced atomically (temporary file, fsync, rename, directory fsync) and only after the bytes
 * it counts were fsynced, so after a crash it never claims more than the disk holds. Not
 * thread-safe: one session's thread.
 */
final class StagingArea {
  static final String PROGRESS = "PROGRESS";
  private static final String HEADER = "frsm-stream-progress 1";

  /** What a previous session of this copy left: the snapshot and how far each file got. */
  record Progress(String snapshotId, List<ManifestFile> files, long[] verified) {}

  private final Path directory;

  StagingArea(Path root, int sourceNodeId, long fromExclusive, long toInclusive) {
    this.directory =
        root.resolve(
            "node"
                + sourceNodeId
                + "-"
                + Long.toHexString(fromExclusive)
                + "-"
                + Long.toHexString(toInclusive));
  }

  Path directory() {
    return directory;
  }

  Path file(String name) {
    if (!io.frsm.transport.stream.StreamWire.validFileName(name) || name.equals(PROGRESS)) {
      throw new StreamException("refusing staged file name '" + name + "'");
    }
    return directory.resolve(name);
  }

  /** The progress a previous session saved, or null (none, or unreadable: start over). */
  Progress load() {
    List<String> lines;
    try {
      lines = Files.readAllLines(directory.resolve(PROGRESS), StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
    try {
      if (lines.size() < 2
          || !lines.get(0).equals(HEADER)
          || !lines.get(1).startsWith("snapshot ")) {
        return null;
      }
      String snapshot = lines.get(1).substring("snapshot ".length());
      List<ManifestFile> files = new ArrayList<>();
      long[] verified = new long[lines.size() - 2];
      for (int i = 2; i < lines.size(); i++) {
        String[] f = lines.get(i).split(" ");
        if (f.length != 5 || !f[0].equals("file")) {
          return null;
        }
        ManifestFile m =
            new ManifestFile(f[1], Long.parseLong(f[2]), Integer.parseUnsignedInt(f[3], 16));
        long v = Long.parseLong(f[4]);
        if (v < 0 || v > m.length()) {
          return null;
        }
        file(m.name());
        files.add(m);
        verified[i - 2] = v;
      }
      return new Progress(snapshot, files, verified);
    } catch (RuntimeException e) {
      return null; // a damaged PROGRESS only costs a fresh copy
    }
  }

  /** Durably records {@code progress}. REQUIRES: the counted bytes are fsynced. */
  void save(Progress progress) throws IOException {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    out.append("snapshot ").append(progress.snapshotId()).append('\n');
    for (int i = 0; i < progress.files().size(); i++) {
      ManifestFile f = progress.files().get(i);
      out.append("file ")
          .append(f.name())
          .append(' ')
          .append(f.length())
          .append(' ')
          .append(Integer.toHexString(f.crc32c()))
          .append(' ')
          .append(progress.verified()[i])
          .append('\n');
    }
    Files.createDirectories(directory);
    Path temporary = directory.resolve(PROGRESS + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(java.nio.ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.UTF_8)));
      ch.force(true);
    }
    try {
      Files.move(
          temporary,
          directory.resolve(PROGRESS),
          StandardCopyOption.ATOMIC_MOVE,
          StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot replace " + PROGRESS + " atomically in " + directory, e);
    }
    syncDirectory(directory);
  }

  /** Empties the directory (a new snapshot starts from nothing). */
  void reset() throws IOException {
    delete();
    Files.createDirectories(directory);
  }

  /** Removes the directory and everything in it; nothing if it does not exist. */
  void delete() throws IOException {
    deleteTree(directory);
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      for (Path p : entries) {
        if (Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
          deleteTree(p);
        } else {
          Files.deleteIfExists(p);
        }
      }
    }
    Files.deleteIfExists(dir);
  }

  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}
