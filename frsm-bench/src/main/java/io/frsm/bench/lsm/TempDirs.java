package io.frsm.bench.lsm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories for benchmark state, deleted at teardown. */
public final class TempDirs {
  private TempDirs() {}

  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything below it; a missing directory is fine. */
  public static void deleteRecursively(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not delete " + dir, e);
    }
  }

  /** Copies the regular files of {@code from} (one level, no subdirectories) into {@code to}. */
  public static void copyFlat(Path from, Path to) {
    try {
      Files.createDirectories(to);
      try (Stream<Path> files = Files.list(from)) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          Files.copy(f, to.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not copy " + from + " to " + to, e);
    }
  }

  /** Sum of the sizes of the regular files directly in {@code dir} whose name ends in suffix. */
  public static long sizeOfFiles(Path dir, String suffix) {
    try (Stream<Path> files = Files.list(dir)) {
      long total = 0;
      for (Path f : files.toList()) {
        if (Files.isRegularFile(f) && f.getFileName().toString().endsWith(suffix)) {
          total += Files.size(f);
        }
      }
      return total;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
