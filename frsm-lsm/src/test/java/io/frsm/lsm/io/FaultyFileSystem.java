package io.frsm.lsm.io;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * An in-memory {@link FileSystem} that keeps exactly what the durability contract promises, so a
 * simulated crash loses what a real one may lose:
 *
 * <ul>
 *   <li>file bytes past the last {@link WritableFile#sync()} are dropped (or, with {@link
 *       #crash(Random)}, a random prefix of them survives: a torn write);
 *   <li>directory entries created, renamed or deleted since the last {@link #syncDirectory} of
 *       their parent revert.
 * </ul>
 *
 * Faults on demand: a byte flip ({@link #flipByte}), a capacity limit that fails writes with "No
 * space left on device" ({@link #setCapacityBytes}), and failing syncs ({@link #setFailSyncs}).
 * Thread-safe: every operation holds the file system's monitor.
 */
public final class FaultyFileSystem implements FileSystem {

  private static final class Node {
    byte[] data = new byte[64];
    int length;
    int syncedLength;
    long generation; // bumped by a crash: writers opened before it fail

    void append(ByteBuffer src) {
      int n = src.remaining();
      if (length + n > data.length) {
        data = Arrays.copyOf(data, Math.max(data.length * 2, length + n));
      }
      src.get(data, length, n);
      length += n;
    }
  }

  private final Map<Path, Node> files = new HashMap<>();
  private final Map<Path, Node> durableFiles = new HashMap<>();
  private final Set<Path> directories = new HashSet<>();
  private long capacityBytes = Long.MAX_VALUE;
  private boolean failSyncs;
  private final Set<Path> fullDirectories = new HashSet<>();
  private final Set<Node> unreadable = new HashSet<>();
  private long crashes;
  private long syncCount;

  private static Path norm(Path p) {
    return p.toAbsolutePath().normalize();
  }

  @Override
  public synchronized WritableFile create(Path path) throws IOException {
    Path p = norm(path);
    requireParent(p);
    if (files.containsKey(p)) {
      throw new FileAlreadyExistsException(p.toString());
    }
    Node node = new Node();
    node.generation = crashes;
    files.put(p, node);
    return new Writer(p, node);
  }

  @Override
  public synchronized ReadableFile openRead(Path path) throws IOException {
    Path p = norm(path);
    Node node = files.get(p);
    if (node == null) {
      throw new NoSuchFileException(p.toString());
    }
    return new Reader(node);
  }

  @Override
  public synchronized boolean exists(Path path) {
    Path p = norm(path);
    return files.containsKey(p) || directories.contains(p);
  }

  @Override
  public synchronized long size(Path path) throws IOException {
    Node node = files.get(norm(path));
    if (node == null) {
      throw new NoSuchFileException(path.toString());
    }
    return node.length;
  }

  @Override
  public synchronized List<Path> list(Path dir) {
    Path d = norm(dir);
    List<Path> out = new ArrayList<>();
    for (Path p : files.keySet()) {
      if (d.equals(p.getParent())) {
        out.add(p);
      }
    }
    for (Path p : directories) {
      if (d.equals(p.getParent())) {
        out.add(p);
      }
    }
    out.sort(null);
    return out;
  }

  @Override
  public synchronized void createDirectories(Path dir) {
    // Directories are durable at once: the engine creates them before any data exists.
    for (Path p = norm(dir); p != null; p = p.getParent()) {
      directories.add(p);
    }
  }

  @Override
  public synchronized void delete(Path path) {
    files.remove(norm(path));
  }

  @Override
  public synchronized void rename(Path source, Path target) throws IOException {
    Path s = norm(source);
    Path t = norm(target);
    Node node = files.remove(s);
    if (node == null) {
      throw new NoSuchFileException(s.toString());
    }
    requireParent(t);
    files.put(t, node);
  }

  @Override
  public synchronized void syncDirectory(Path dir) throws IOException {
    if (failSyncs) {
      throw new IOException("Input/output error (injected) syncing directory " + dir);
    }
    Path d = norm(dir);
    durableFiles.keySet().removeIf(p -> d.equals(p.getParent()));
    for (Map.Entry<Path, Node> e : files.entrySet()) {
      if (d.equals(e.getKey().getParent())) {
        durableFiles.put(e.getKey(), e.getValue());
      }
    }
  }

  /** Simulates power loss: every unsynced byte and directory change is lost. */
  public synchronized void crash() {
    crash(null);
  }

  /**
   * Simulates power loss. With a random source, each file keeps a random prefix of its unsynced
   * tail (a torn write) instead of losing all of it.
   */
  public synchronized void crash(Random tornWrites) {
    crashes++;
    for (Node node : files.values()) {
      // Handles to files whose directory entry the crash loses must fail too, not write to a ghost.
      node.generation = crashes;
    }
    files.clear();
    files.putAll(durableFiles);
    for (Node node : files.values()) {
      int keep = node.syncedLength;
      if (tornWrites != null && node.length > node.syncedLength) {
        keep += tornWrites.nextInt(node.length - node.syncedLength + 1);
      }
      node.length = keep;
      node.syncedLength = keep;
      node.generation = crashes;
    }
  }

  /** Flips every bit of the byte at {@code offset} (durably: it survives crashes). */
  public synchronized void flipByte(Path path, long offset) throws IOException {
    Node node = files.get(norm(path));
    if (node == null) {
      throw new NoSuchFileException(path.toString());
    }
    if (offset < 0 || offset >= node.length) {
      throw new IllegalArgumentException("offset " + offset + " outside " + node.length + " bytes");
    }
    node.data[(int) offset] ^= (byte) 0xff;
  }

  /** Total bytes all files may hold; a write past it fails and writes nothing. */
  public synchronized void setCapacityBytes(long capacityBytes) {
    this.capacityBytes = capacityBytes;
  }

  /**
   * Makes the device holding {@code dir} full (or not): writes to files directly in it fail with
   * "No space left on device", other directories are unaffected (separate devices).
   */
  public synchronized void setDirectoryFull(Path dir, boolean full) {
    if (full) {
      fullDirectories.add(norm(dir));
    } else {
      fullDirectories.remove(norm(dir));
    }
  }

  /** Makes every read of {@code path} fail with an I/O error (or read again), as a bad sector. */
  public synchronized void setReadsFail(Path path, boolean fail) throws IOException {
    Node node = files.get(norm(path));
    if (node == null) {
      throw new NoSuchFileException(path.toString());
    }
    if (fail) {
      unreadable.add(node);
    } else {
      unreadable.remove(node);
    }
  }

  public synchronized void setFailSyncs(boolean failSyncs) {
    this.failSyncs = failSyncs;
  }

  public synchronized long usedBytes() {
    long used = 0;
    for (Node n : files.values()) {
      used += n.length;
    }
    return used;
  }

  public synchronized long syncCount() {
    return syncCount;
  }

  private void requireParent(Path p) throws IOException {
    Path parent = p.getParent();
    if (parent != null && !directories.contains(parent)) {
      throw new NoSuchFileException(parent.toString(), null, "parent directory does not exist");
    }
  }

  private final class Writer implements WritableFile {
    private final Path path;
    private final Node node;
    private final long generation;
    private boolean closed;

    Writer(Path path, Node node) {
      this.path = path;
      this.node = node;
      this.generation = node.generation;
    }

    private void check() throws IOException {
      if (closed) {
        throw new IOException("closed: " + path);
      }
      if (node.generation != generation) {
        throw new IOException("file handle lost in a simulated crash: " + path);
      }
    }

    @Override
    public void write(ByteBuffer src) throws IOException {
      synchronized (FaultyFileSystem.this) {
        check();
        if (usedBytes() + src.remaining() > capacityBytes
            || fullDirectories.contains(path.getParent())) {
          throw new IOException("No space left on device (injected) writing " + path);
        }
        node.append(src);
      }
    }

    @Override
    public void sync() throws IOException {
      synchronized (FaultyFileSystem.this) {
        check();
        if (failSyncs) {
          throw new IOException("Input/output error (injected) syncing " + path);
        }
        node.syncedLength = node.length;
        syncCount++;
      }
    }

    @Override
    public long position() {
      synchronized (FaultyFileSystem.this) {
        return node.length;
      }
    }

    @Override
    public void close() {
      synchronized (FaultyFileSystem.this) {
        closed = true;
      }
    }
  }

  private final class Reader implements ReadableFile {
    private final Node node;

    Reader(Node node) {
      this.node = node;
    }

    @Override
    public void readFully(ByteBuffer dst, long position) throws IOException {
      synchronized (FaultyFileSystem.this) {
        if (unreadable.contains(node)) {
          throw new IOException("Input/output error (injected)");
        }
        int n = dst.remaining();
        if (position < 0 || position + n > node.length) {
          throw new EOFException(
              "end of file: " + node.length + " bytes, reading " + n + " at " + position);
        }
        dst.put(node.data, (int) position, n);
      }
    }

    @Override
    public long size() {
      synchronized (FaultyFileSystem.this) {
        return node.length;
      }
    }

    @Override
    public void close() {}
  }
}
