package io.frsm.lsm;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The whole-replica quarantine: damage inside the durable part of a commit-log segment lost
 * acknowledged records of keys nobody can name any more, so every token is fenced until the
 * replica's ranges are repaired (docs/PROTOCOL.md "Corrupt storage"). Kept as the file {@code
 * <data>/REPLICA-FENCE}: its presence is the fence (its text only tells an operator why), so
 * damaged contents still fence. Written durably before the engine opens, hence before the damaged
 * segment can be discarded by a flush.
 */
final class ReplicaFence {
  static final String FILE_NAME = "REPLICA-FENCE";

  /** The pseudo-generation {@link LsmEngine#releaseQuarantine(long)} takes to lift it. */
  static final long GENERATION = 0;

  private ReplicaFence() {}

  static boolean present(FileSystem fs, Path dataDirectory) {
    return fs.exists(dataDirectory.resolve(FILE_NAME));
  }

  static void write(FileSystem fs, Path dataDirectory, String reason) throws IOException {
    Path file = dataDirectory.resolve(FILE_NAME);
    Path tmp = dataDirectory.resolve(FILE_NAME + ".tmp");
    fs.delete(tmp);
    try (WritableFile out = fs.create(tmp)) {
      out.write(ByteBuffer.wrap(reason.getBytes(StandardCharsets.UTF_8)));
      out.sync();
    }
    fs.rename(tmp, file);
    fs.syncDirectory(dataDirectory);
  }

  static void remove(FileSystem fs, Path dataDirectory) throws IOException {
    fs.delete(dataDirectory.resolve(FILE_NAME));
    fs.syncDirectory(dataDirectory);
  }
}
