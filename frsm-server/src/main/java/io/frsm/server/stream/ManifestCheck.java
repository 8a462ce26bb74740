package io.frsm.server.stream;

import io.frsm.transport.proto.StreamFile;
import io.frsm.transport.proto.StreamManifest;
import io.frsm.transport.stream.StreamWire;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The receiver's checks of what a source offers, before a byte of it is fetched. */
final class ManifestCheck {
  private ManifestCheck() {}

  /**
   * The manifest's files, if its snapshot id and every file name are valid (no path, no repeat,
   * never the staging area's own PROGRESS file), its files at most {@link StreamWire#MAX_FILES} and
   * every length below 2^63.
   *
   * @throws ProtocolViolation otherwise
   */
  static List<ManifestFile> files(StreamManifest m) {
    if (!StreamWire.validSnapshotId(m.getSnapshotId())) {
      throw new ProtocolViolation("manifest with invalid snapshot id");
    }
    if (m.getFilesCount() > StreamWire.MAX_FILES) {
      throw new ProtocolViolation(
          "manifest lists " + m.getFilesCount() + " files, at most " + StreamWire.MAX_FILES);
    }
    List<ManifestFile> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (StreamFile f : m.getFilesList()) {
      if (!StreamWire.validFileName(f.getName())
          || f.getName().startsWith(StagingArea.PROGRESS)
          || !names.add(f.getName())) {
        throw new ProtocolViolation("manifest names an invalid or repeated file");
      }
      if (f.getLength() < 0) {
        throw new ProtocolViolation("manifest file " + f.getName() + " has length above 2^63-1");
      }
      out.add(new ManifestFile(f.getName(), f.getLength(), f.getCrc32C()));
    }
    return out;
  }

  /**
   * Fails unless {@code usable} bytes hold what is left to stage and the import's copy of every
   * file (the engine rewrites each imported file into its own directory).
   *
   * @throws StreamException naming the directory, the bytes needed and the bytes usable
   */
  static void requireSpace(
      List<ManifestFile> files, long[] verified, Path directory, long usable, String copy) {
    long remaining = 0;
    long total = 0;
    for (int i = 0; i < files.size(); i++) {
      remaining = saturatedAdd(remaining, files.get(i).length() - verified[i]);
      total = saturatedAdd(total, files.get(i).length());
    }
    long needed = saturatedAdd(remaining, total);
    if (usable < needed) {
      throw new StreamException(
          "not enough disk space in "
              + directory
              + ": "
              + copy
              + " needs "
              + needed
              + " bytes ("
              + remaining
              + " to stage, "
              + total
              + " for the import), "
              + usable
              + " are usable; nothing was imported");
    }
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }
}
