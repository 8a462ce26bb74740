package io.frsm.server.stream;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The open files of one copy's snapshot in its staging directory, as the receiver writes verified
 * chunks into them: which were written since they were last forced, and the whole-file check once a
 * file is complete.
 *
 * <p>The durable-progress rule lives here: a file's verified prefix may be recorded only after
 * {@link #forceWritten} returned (so a crash never leaves a recorded prefix the disk does not
 * hold), and reopening truncates each file to its recorded prefix (bytes past it were never counted
 * as verified). Not thread-safe: the receiver's executor owns it.
 */
final class StagedFiles {
  private final StagingArea staging;
  private final List<FileChannel> writers = new ArrayList<>();
  private final BitSet written = new BitSet();
  private List<ManifestFile> files = List.of();

  StagedFiles(StagingArea staging) {
    this.staging = staging;
  }

  /**
   * Opens (creating as needed) every file of {@code files}, each cut to its {@code verified}
   * prefix; closes what was open before.
   */
  void open(List<ManifestFile> files, long[] verified) throws IOException {
    if (verified.length != files.size()) {
      throw new IllegalArgumentException(
          verified.length + " verified offsets for " + files.size() + " files");
    }
    close();
    this.files = files;
    for (int i = 0; i < files.size(); i++) {
      FileChannel w =
          FileChannel.open(
              staging.file(files.get(i).name()),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE);
      writers.add(w);
      w.truncate(verified[i]);
    }
  }

  /** Writes a verified chunk's bytes at {@code offset} of file {@code file}. */
  void write(int file, long offset, ByteBuffer bytes) {
    // The buffer's position need not start at 0 (a ByteString sharing its frame's array starts at
    // its place in it): count what was written instead.
    FileChannel w = writers.get(file);
    try {
      long at = offset;
      while (bytes.hasRemaining()) {
        at += w.write(bytes, at);
      }
    } catch (IOException e) {
      throw new StreamException(
          "writing " + staging.file(files.get(file).name()) + " failed: " + e.getMessage(), e);
    }
    written.set(file);
  }

  /**
   * File {@code file} is whole: forces it and checks its CRC32C against the manifest's. A mismatch
   * ends the copy: every chunk verified, so the source's bytes are not what its manifest says (or
   * ours changed under us), and asking again would fetch the same bytes.
   */
  void completeFile(int file, String snapshotId) throws IOException {
    ManifestFile f = files.get(file);
    writers.get(file).force(true);
    written.clear(file);
    int crc = Crc32c.ofFile(staging.file(f.name()), f.length());
    if (crc != f.crc32c()) {
      throw new StreamException(
          "file " + f.name() + " of snapshot " + snapshotId + " fails its whole-file CRC32C");
    }
  }

  /** Forces every file written since it was last forced: then its progress may be recorded. */
  void forceWritten() throws IOException {
    for (int i = written.nextSetBit(0); i >= 0; i = written.nextSetBit(i + 1)) {
      writers.get(i).force(true);
    }
    written.clear();
  }

  /** Files written since they were last forced (for tests). */
  int unforced() {
    return written.cardinality();
  }

  /** Closes every file (a close failure is logged by the caller's logger, never thrown). */
  void close() {
    for (FileChannel w : writers) {
      try {
        w.close();
      } catch (IOException e) {
        System.getLogger(StagedFiles.class.getName())
            .log(System.Logger.Level.WARNING, "closing a staged file failed", e);
      }
    }
    writers.clear();
    written.clear();
  }

  /** The paths of the non-empty files, to import (an empty table file is not a table). */
  List<Path> nonEmptyPaths() {
    List<Path> paths = new ArrayList<>();
    for (ManifestFile f : files) {
      if (f.length() > 0) {
        paths.add(staging.file(f.name()));
      }
    }
    return paths;
  }
}
