package io.frsm.server.node;

import java.io.IOException;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Keeps a node off a full disk (docs/OPERATIONS.md "Disk full on the data directory",
 * docs/PROTOCOL.md "Disk space guard"): polled every {@code node.diskSpaceCheckInterval}, it finds
 * space low when any of the node's storage directories has less usable space than max({@code
 * node.minFreeDiskBytes}, {@code node.minFreeDiskFraction} of its file system). While low, the node
 * refuses the mutations it would coordinate ({@link #refusal}: "not executed", so a client may
 * retry elsewhere or later) and its acceptor stays silent on everything that would make it write
 * ({@link AcceptorSilence}); reads go on. It clears by itself on the first poll that finds space
 * again.
 *
 * <p>Why a guard before the disk is full rather than handling ENOSPC alone: a write that fails
 * half-way leaves memory and disk in doubt (the record may be durable though the acceptor never
 * answered), and a node that no longer knows its own promises must not vote. Refusing before the
 * disk fills keeps every write that is attempted one that can succeed; the margin absorbs the
 * writes in flight and the flushes of memtables already full.
 *
 * <p>Thread-safety: {@link #check} runs on one polling thread; {@link #low} and {@link #refusal}
 * are read on any thread (a volatile snapshot).
 */
final class DiskSpaceGuard {
  /** Free and total space of the file system holding a directory. */
  record Space(long usableBytes, long totalBytes) {}

  /** The seam to the file system's space figures (tests fake it). */
  @FunctionalInterface
  interface Probe {
    Space of(Path directory) throws IOException;

    /** The file store that holds {@code directory}, as the JDK reports it. */
    Probe FILE_STORE =
        directory -> {
          FileStore store = Files.getFileStore(directory);
          return new Space(store.getUsableSpace(), store.getTotalSpace());
        };
  }

  /** Why mutations are refused now; null while space suffices. */
  private volatile String refusal;

  private final int nodeId;
  private final List<Path> directories;
  private final Probe probe;
  private final long minFreeBytes;
  private final double minFreeFraction;
  private final Logger log;
  private final RateLimitedLog stillLow;
  private final RateLimitedLog probeFailed;
  private final LongAdder refusedMutations = new LongAdder();
  private final AtomicLong lowSpells = new AtomicLong();

  /**
   * @param directories the node's storage directories (data directory, commit-log directories)
   * @param minFreeBytes the least usable space each must keep, in bytes
   * @param minFreeFraction the least usable share of each one's file system, in [0, 1)
   */
  DiskSpaceGuard(
      int nodeId,
      List<Path> directories,
      Probe probe,
      long minFreeBytes,
      double minFreeFraction,
      Logger log) {
    if (directories.isEmpty()) {
      throw new IllegalArgumentException("no directory to guard");
    }
    if (minFreeBytes < 0 || !(minFreeFraction >= 0 && minFreeFraction < 1)) {
      throw new IllegalArgumentException(
          "free space minimum out of range: " + minFreeBytes + " bytes, share " + minFreeFraction);
    }
    this.nodeId = nodeId;
    this.directories = List.copyOf(directories);
    this.probe = probe;
    this.minFreeBytes = minFreeBytes;
    this.minFreeFraction = minFreeFraction;
    this.log = log;
    this.stillLow = new RateLimitedLog(log, Level.WARNING, 1, TimeUnit.MINUTES);
    this.probeFailed = new RateLimitedLog(log, Level.WARNING, 1, TimeUnit.MINUTES);
  }

  /**
   * Polls every directory once and moves the guard on. A directory whose space cannot be read keeps
   * the guard where it was (logged): a probe failure proves neither a full nor a free disk.
   */
  void check() {
    String low = null;
    for (Path directory : directories) {
      Space space;
      try {
        space = probe.of(directory);
      } catch (IOException | RuntimeException e) {
        probeFailed.log("node " + nodeId + ": cannot read the free space of " + directory, e);
        return;
      }
      long minimum = minimumFor(space.totalBytes());
      if (space.usableBytes() < minimum) {
        low =
            "node "
                + nodeId
                + " refuses writes: disk space low on "
                + directory
                + " ("
                + space.usableBytes()
                + " bytes free, the node keeps "
                + minimum
                + "); it takes writes again by itself once space is freed";
        break;
      }
    }
    String before = refusal;
    refusal = low;
    if (low != null && before == null) {
      lowSpells.incrementAndGet();
      log.log(Level.ERROR, low);
    } else if (low != null) {
      stillLow.log(low, null);
    } else if (before != null) {
      log.log(Level.WARNING, "node " + nodeId + ": disk space is back; writes are taken again");
    }
  }

  /** max(minFreeBytes, minFreeFraction × total): the space a directory's file system must keep. */
  long minimumFor(long totalBytes) {
    return Math.max(minFreeBytes, (long) Math.ceil(minFreeFraction * Math.max(0, totalBytes)));
  }

  /** Whether space is low as of the last poll. */
  boolean low() {
    return refusal != null;
  }

  /**
   * The reason to answer a mutation with while space is low (and counts it), or null when the
   * mutation may run.
   */
  String refusal() {
    String r = refusal;
    if (r != null) {
      refusedMutations.increment();
    }
    return r;
  }

  /** Mutations refused for low disk space so far. */
  long refusedMutations() {
    return refusedMutations.sum();
  }

  /** Times space went from enough to low. */
  long lowSpells() {
    return lowSpells.get();
  }
}
