package io.frsm.server.node;

import java.nio.file.Path;
import java.util.List;

/**
 * A process that claims a directory and keeps it until killed, for {@link DataDirectoryLockTest}:
 * prints {@link #HELD} once it holds the lock, then waits for its standard input to end.
 */
final class DataDirectoryLockHolder {
  static final String HELD = "held";

  private DataDirectoryLockHolder() {}

  public static void main(String[] args) throws Exception {
    DataDirectoryLock lock = DataDirectoryLock.acquire(List.of(Path.of(args[0])));
    System.out.println(HELD);
    System.out.flush();
    while (System.in.read() >= 0) {
      // waits for the test to kill it
    }
    lock.close();
  }
}
