package io.frsm.server.stream;

import io.frsm.transport.stream.StreamWire;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The source's range snapshots: each an export of one range (the engine's exportRange) in its own
 * directory under the data directory, with a {@code MANIFEST} listing its files, lengths and
 * CRC32C, written (atomically, after the files were fsynced) last. A snapshot outlives the session
 * that made it and the process, so a receiver can resume after either side crashed; one unused for
 * longer than its time to live is deleted by {@link #sweep}, one the receiver is done with by
 * {@link #release}. Thread-safe (synchronized; exports run outside the lock).
 */
final class SnapshotStore {
  static final String MANIFEST = "MANIFEST";
  private static final String HEADER = "frsm-stream-snapshot 1";

  /** Exports the tokens {@code [first, last]} as SSTable files into {@code directory}. */
  @FunctionalInterface
  interface RangeExporter {
    List<Path> export(long firstToken, long lastToken, Path directory) throws IOException;
  }

  record Snapshot(
      String id, long fromExclusive, long toInclusive, Path directory, List<ManifestFile> files) {}

  private final Path root;
  private final RangeExporter exporter;
  private final long ttlMillis;
  private final LongSupplier clockMillis;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Snapshot> known = new HashMap<>();
  private final Map<String, Long> lastUsedMillis = new HashMap<>();
  private final Map<String, Integer> inUse = new HashMap<>();

  SnapshotStore(Path root, RangeExporter exporter, long ttlMillis, LongSupplier clockMillis) {
    this.root = root;
    this.exporter = exporter;
    this.ttlMillis = ttlMillis;
    this.clockMillis = clockMillis;
  }

  Path root() {
    return root;
  }

  /**
   * The snapshot {@code requestedId} of the range if it still exists and the receiver's progress
   * fits it, else a new export; either way marked in use until {@link #unuse}.
   */
  Snapshot open(String requestedId, long from, long to, Map<String, Long> verified)
      throws IOException {
    if (StreamWire.validSnapshotId(requestedId)) {
      Snapshot s = find(requestedId);
      if (s != null && s.fromExclusive() == from && s.toInclusive() == to && fits(s, verified)) {
        use(s.id());
        return s;
      }
    }
    Snapshot created = create(from, to);
    use(created.id());
    return created;
  }

  private static boolean fits(Snapshot s, Map<String, Long> verified) {
    for (Map.Entry<String, Long> e : verified.entrySet()) {
      ManifestFile f =
          s.files().stream().filter(m -> m.name().equals(e.getKey())).findFirst().orElse(null);
      if (f == null || e.getValue() < 0 || e.getValue() > f.length()) {
        return false;
      }
    }
    return true;
  }

  private Snapshot create(long from, long to) throws IOException {
    String id = HexFormat.of().formatHex(bytes(8));
    Path dir = root.resolve(id);
    Files.createDirectories(dir);
    try {
      List<Path> exported = new ArrayList<>();
      for (TokenSpan span : TokenSpan.ofRange(from, to)) {
        exported.addAll(exporter.export(span.first(), span.last(), dir));
      }
      List<ManifestFile> files = new ArrayList<>();
      for (Path p : exported) {
        String name = p.getFileName().toString();
        if (!StreamWire.validFileName(name) || !p.getParent().equals(dir)) {
          throw new IOException("exported file " + p + " is not a plain file of " + dir);
        }
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ)) {
          ch.force(true);
        }
        long length = Files.size(p);
        files.add(new ManifestFile(name, length, Crc32c.ofFile(p, length)));
      }
      StagingArea.syncDirectory(dir);
      writeManifest(dir, from, to, files);
      Snapshot s = new Snapshot(id, from, to, dir, List.copyOf(files));
      synchronized (this) {
        known.put(id, s);
      }
      return s;
    } catch (IOException | RuntimeException e) {
      StagingArea.deleteTree(dir);
      throw e;
    }
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    random.nextBytes(b);
    return b;
  }

  private static void writeManifest(Path dir, long from, long to, List<ManifestFile> files)
      throws IOException {
    StringBuilder out = new StringBuilder(HEADER).append('\n');
    out.append("range ").append(from).append(' ').append(to).append('\n');
    for (ManifestFile f : files) {
      out.append("file ").append(f.name()).append(' ').append(f.length()).append(' ');
      out.append(Integer.toHexString(f.crc32c())).append('\n');
    }
    Path temporary = dir.resolve(MANIFEST + ".tmp");
    try (FileChannel ch =
        FileChannel.open(
            temporary,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(ByteBuffer.wrap(out.toString().getBytes(StandardCharsets.UTF_8)));
      ch.force(true);
    }
    Files.move(temporary, dir.resolve(MANIFEST), StandardCopyOption.ATOMIC_MOVE);
    StagingArea.syncDirectory(dir);
  }

  /** The snapshot, from memory or (after a restart) its MANIFEST; null if gone or damaged. */
  synchronized Snapshot find(String id) {
    Snapshot s = known.get(id);
    if (s != null) {
      return s;
    }
    Path dir = root.resolve(id);
    try {
      List<String> lines = Files.readAllLines(dir.resolve(MANIFEST), StandardCharsets.UTF_8);
      if (lines.size() < 2 || !lines.get(0).equals(HEADER)) {
        return null;
      }
      String[] range = lines.get(1).split(" ");
      if (range.length != 3 || !range[0].equals("range")) {
        return null;
      }
      List<ManifestFile> files = new ArrayList<>();
      for (String line : lines.subList(2, lines.size())) {
        String[] f = line.split(" ");
        if (f.length != 4 || !f[0].equals("file") || !StreamWire.validFileName(f[1])) {
          return null;
        }
        ManifestFile m =
            new ManifestFile(f[1], Long.parseLong(f[2]), Integer.parseUnsignedInt(f[3], 16));
        if (Files.size(dir.resolve(m.name())) != m.length()) {
          return null;
        }
        files.add(m);
      }
      s = new Snapshot(id, Long.parseLong(range[1]), Long.parseLong(range[2]), dir, files);
      known.put(id, s);
      return s;
    } catch (IOException | RuntimeException e) {
      return null; // missing or damaged: the receiver gets a new snapshot
    }
  }

  private synchronized void use(String id) {
    inUse.merge(id, 1, Integer::sum);
    lastUsedMillis.put(id, clockMillis.getAsLong());
  }

  /** A session stopped reading {@code id}; its time to live starts now. */
  synchronized void unuse(String id) {
    inUse.computeIfPresent(id, (k, n) -> n <= 1 ? null : n - 1);
    lastUsedMillis.put(id, clockMillis.getAsLong());
  }

  /** The receiver is done with {@code id} (imported or cancelled): deleted unless in use. */
  void release(String id) throws IOException {
    if (!StreamWire.validSnapshotId(id)) {
      return;
    }
    synchronized (this) {
      if (inUse.containsKey(id)) {
        return;
      }
      known.remove(id);
      lastUsedMillis.remove(id);
    }
    StagingArea.deleteTree(root.resolve(id));
  }

  /** Deletes snapshots unused for longer than the time to live (and leftovers of exports). */
  void sweep() throws IOException {
    if (!Files.isDirectory(root)) {
      return;
    }
    long now = clockMillis.getAsLong();
    List<Path> expired = new ArrayList<>();
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root)) {
      for (Path dir : dirs) {
        String id = dir.getFileName().toString();
        synchronized (this) {
          if (inUse.containsKey(id)) {
            continue;
          }
          Long used = lastUsedMillis.get(id);
          long last = used != null ? used : Files.getLastModifiedTime(dir).toMillis();
          if (now - last > ttlMillis) {
            known.remove(id);
            lastUsedMillis.remove(id);
            expired.add(dir);
          }
        }
      }
    }
    for (Path dir : expired) {
      StagingArea.deleteTree(dir);
    }
  }
}
