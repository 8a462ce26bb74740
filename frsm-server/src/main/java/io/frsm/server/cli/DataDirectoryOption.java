package io.frsm.server.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --dir DIR} of the commands that run a local cluster: where it keeps its data. */
final class DataDirectoryOption {
  @Option(
      names = "--dir",
      paramLabel = "DIR",
      description = "Where the nodes and ZooKeeper keep their data (default: a new temporary one).")
  Path dir;

  /** The directory given, else a new temporary one whose name starts with {@code prefix}. */
  Path orNewTemporary(String prefix) throws IOException {
    return dir != null ? dir : Files.createTempDirectory(prefix);
  }
}
