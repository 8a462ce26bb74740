package io.frsm.lsm.commitlog;

import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.WritableFile;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Delegates to another file system, except that while closed a file sync blocks until the gate
 * opens (a test holds a stripe's writer inside one sync while more records queue up), and that a
 * write can be made to throw an unchecked exception (a bug below the commit log), and that a sync
 * can be made to last at least a given time (a slow device). Its files never preallocate, so no
 * spare segment adds syncs to the counts these tests pin.
 */
final class SyncGateFileSystem extends ForwardingFileSystem {
  private volatile CountDownLatch gate = new CountDownLatch(0);
  private volatile CountDownLatch syncBlocked = new CountDownLatch(1);
  private volatile RuntimeException writeBug;
  private volatile long minimumSyncNanos;

  SyncGateFileSystem(FileSystem delegate) {
    super(delegate);
  }

  /**
   * From now on, syncs block until {@link #open()}; {@link #awaitBlockedSync} waits for the next
   * one that does.
   */
  void close() {
    syncBlocked = new CountDownLatch(1);
    gate = new CountDownLatch(1);
  }

  void open() {
    gate.countDown();
  }

  /** From now on, every file write throws {@code bug}. */
  void throwOnWrite(RuntimeException bug) {
    writeBug = bug;
  }

  /** From now on, every sync lasts at least {@code nanos}: a device that slow. */
  void slowSyncs(long nanos) {
    minimumSyncNanos = nanos;
  }

  /** Waits until a sync is blocked on the closed gate. */
  boolean awaitBlockedSync(long timeout, TimeUnit unit) throws InterruptedException {
    return syncBlocked.await(timeout, unit);
  }

  @Override
  public WritableFile create(Path path) throws IOException {
    WritableFile file = delegate.create(path);
    return new WritableFile() {
      @Override
      public void write(ByteBuffer src) throws IOException {
        RuntimeException bug = writeBug;
        if (bug != null) {
          throw bug;
        }
        file.write(src);
      }

      @Override
      public void sync() throws IOException {
        long slowUntil = System.nanoTime() + minimumSyncNanos;
        CountDownLatch g = gate;
        if (g.getCount() > 0) {
          syncBlocked.countDown();
          try {
            if (!g.await(30, TimeUnit.SECONDS)) {
              throw new IOException("test gate never opened");
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted at the test gate", e);
          }
        }
        file.sync();
        long left;
        while ((left = slowUntil - System.nanoTime()) > 0) {
          LockSupport.parkNanos(left); // the device's time, not a wait for another thread
        }
      }

      @Override
      public long position() {
        return file.position();
      }

      @Override
      public void close() throws IOException {
        file.close();
      }
    };
  }
}
