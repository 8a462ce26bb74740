package io.frsm.lsm.manifest;

import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.ReadableFile;
import io.frsm.lsm.io.WritableFile;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads and writes manifest snapshots (docs/FORMATS.md "Manifest").
 *
 * <p>Atomic protocol: write {@code MANIFEST-<seq>.tmp}, sync it, rename it to {@code
 * MANIFEST-<seq>}, sync the directory, then delete older manifests. On open the highest complete
 * sequence wins; {@code .tmp} files are leftovers of a crash and are deleted. A damaged newest
 * manifest is a {@link CorruptionException}: falling back to an older one could resurrect tables
 * whose data was compacted away.
 *
 * <pre>
 *   u32 magic 0x46524D46 ("FRMF")   u16 format version (1 or 2)
 *   u64 sequence   u64 nextGeneration   u32 table count
 *   per table: u64 generation, u8 flags (bit0 segregated, bit1 quarantined,
 *              bit2 quarantined intervals follow: version 2 only), i64 minToken,
 *              i64 maxToken,
 *              u64 fileSizeBytes, u64 cellCount
 *              [if bit2: u16 interval count (1..64), per interval: i64 fromToken, i64 toToken]
 *   u32 CRC32C of every preceding byte
 * </pre>
 *
 * A manifest is written as version 1 while no table has quarantined intervals (byte-identical to
 * what older builds wrote, so they can still read it), as version 2 otherwise (older builds refuse
 * it as an unsupported version rather than ignore the fences). Both are read.
 *
 * <p>Big-endian. DO NOT CHANGE: written to disk.
 */
public final class ManifestStore {
  static final int MAGIC = 0x46524D46;
  static final short FORMAT_VERSION = 1;
  static final short FORMAT_VERSION_WITH_INTERVALS = 2;
  static final int HEADER_BYTES = 4 + 2 + 8 + 8 + 4;
  static final int ENTRY_BYTES = 8 + 1 + 8 + 8 + 8 + 8;
  static final int FLAG_SEGREGATED = 1;
  static final int FLAG_QUARANTINED = 2;
  static final int FLAG_INTERVALS = 4;
  static final int INTERVAL_BYTES = 8 + 8;

  /** Refuses a manifest file above this size before allocating for it (hostile bytes). */
  static final long MAX_MANIFEST_BYTES = 256L << 20;

  static final String PREFIX = "MANIFEST-";
  static final String TMP_SUFFIX = ".tmp";

  private static final System.Logger LOG = System.getLogger(ManifestStore.class.getName());

  private final FileSystem fs;
  private final Path directory;

  public ManifestStore(FileSystem fs, Path directory) {
    this.fs = fs;
    this.directory = directory;
  }

  /** Loads the newest manifest, or {@link Manifest#empty()} if there is none. */
  public Manifest load() throws IOException {
    fs.createDirectories(directory);
    Path newest = null;
    long newestSeq = -1;
    for (Path p : fs.list(directory)) {
      String name = p.getFileName().toString();
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      if (name.endsWith(TMP_SUFFIX)) {
        LOG.log(System.Logger.Level.INFO, "deleting incomplete manifest {0}", p);
        fs.delete(p);
        continue;
      }
      long seq = parseSequence(name);
      if (seq > newestSeq) {
        newestSeq = seq;
        newest = p;
      }
    }
    if (newest == null) {
      return Manifest.empty();
    }
    Manifest m = read(newest);
    if (m.sequence() != newestSeq) {
      throw new CorruptionException(newest, 6, "manifest sequence does not match its file name");
    }
    return m;
  }

  /** Writes {@code manifest} durably and atomically, then removes older manifests. */
  public void write(Manifest manifest) throws IOException {
    byte[] bytes = encode(manifest);
    fs.createDirectories(directory);
    Path target = directory.resolve(fileName(manifest.sequence()));
    Path tmp = directory.resolve(fileName(manifest.sequence()) + TMP_SUFFIX);
    fs.delete(tmp);
    try (WritableFile out = fs.create(tmp)) {
      out.write(ByteBuffer.wrap(bytes));
      out.sync();
    }
    fs.rename(tmp, target);
    fs.syncDirectory(directory);
    for (Path p : fs.list(directory)) {
      String name = p.getFileName().toString();
      if (name.startsWith(PREFIX)
          && !name.endsWith(TMP_SUFFIX)
          && parseSequence(name) < manifest.sequence()) {
        fs.delete(p);
      }
    }
  }

  static String fileName(long sequence) {
    return String.format("%s%020d", PREFIX, sequence);
  }

  private static long parseSequence(String name) {
    try {
      return Long.parseLong(name.substring(PREFIX.length()));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static byte[] encode(Manifest m) {
    int size = HEADER_BYTES + 4;
    boolean anyIntervals = false;
    for (TableEntry t : m.tables()) {
      size += ENTRY_BYTES;
      if (t.hasQuarantinedBlocks()) {
        anyIntervals = true;
        size += 2 + t.quarantinedIntervals().size() * INTERVAL_BYTES;
      }
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.putInt(MAGIC);
    buf.putShort(anyIntervals ? FORMAT_VERSION_WITH_INTERVALS : FORMAT_VERSION);
    buf.putLong(m.sequence());
    buf.putLong(m.nextGeneration());
    buf.putInt(m.tables().size());
    for (TableEntry t : m.tables()) {
      buf.putLong(t.generation());
      buf.put(
          (byte)
              ((t.segregated() ? FLAG_SEGREGATED : 0)
                  | (t.quarantined() ? FLAG_QUARANTINED : 0)
                  | (t.hasQuarantinedBlocks() ? FLAG_INTERVALS : 0)));
      buf.putLong(t.minToken());
      buf.putLong(t.maxToken());
      buf.putLong(t.fileSizeBytes());
      buf.putLong(t.cellCount());
      if (t.hasQuarantinedBlocks()) {
        buf.putShort((short) t.quarantinedIntervals().size());
        for (TokenInterval q : t.quarantinedIntervals()) {
          buf.putLong(q.fromToken());
          buf.putLong(q.toToken());
        }
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, buf.position());
    buf.putInt((int) crc.getValue());
    return buf.array();
  }

  Manifest read(Path path) throws IOException {
    byte[] bytes;
    try (ReadableFile in = fs.openRead(path)) {
      long size = in.size();
      if (size < HEADER_BYTES + 4 || size > MAX_MANIFEST_BYTES) {
        throw new CorruptionException(path, 0, "manifest has an impossible size " + size);
      }
      bytes = new byte[(int) size];
      in.readFully(ByteBuffer.wrap(bytes), 0);
    } catch (EOFException e) {
      throw new CorruptionException(path, 0, "manifest truncated", e);
    }
    return decode(path, bytes);
  }

  static Manifest decode(Path path, byte[] bytes) throws CorruptionException {
    if (bytes.length < HEADER_BYTES + 4) {
      throw new CorruptionException(path, 0, "manifest has an impossible size " + bytes.length);
    }
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    int crcAt = bytes.length - 4;
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, crcAt);
    if ((int) crc.getValue() != buf.getInt(crcAt)) {
      throw new CorruptionException(path, crcAt, "manifest checksum mismatch");
    }
    if (buf.getInt() != MAGIC) {
      throw new CorruptionException(path, 0, "not a manifest (bad magic)");
    }
    short version = buf.getShort();
    if (version != FORMAT_VERSION && version != FORMAT_VERSION_WITH_INTERVALS) {
      throw new CorruptionException(path, 4, "unsupported manifest format version " + version);
    }
    long sequence = buf.getLong();
    long nextGeneration = buf.getLong();
    int count = buf.getInt();
    // Every entry takes at least ENTRY_BYTES: bounds the count before anything is allocated.
    if (count < 0 || (long) count * ENTRY_BYTES > crcAt - HEADER_BYTES) {
      throw new CorruptionException(path, HEADER_BYTES - 4, "manifest table count " + count);
    }
    int allowedFlags = FLAG_SEGREGATED | FLAG_QUARANTINED;
    if (version == FORMAT_VERSION_WITH_INTERVALS) {
      allowedFlags |= FLAG_INTERVALS;
    }
    List<TableEntry> tables = new ArrayList<>(count);
    try {
      for (int i = 0; i < count; i++) {
        if (crcAt - buf.position() < ENTRY_BYTES) {
          throw new CorruptionException(path, buf.position(), "manifest entry " + i + " truncated");
        }
        long generation = buf.getLong();
        int flags = buf.get();
        if ((flags & ~allowedFlags) != 0) {
          throw new CorruptionException(path, buf.position() - 1, "unknown table flags " + flags);
        }
        long minToken = buf.getLong();
        long maxToken = buf.getLong();
        long fileSizeBytes = buf.getLong();
        long cellCount = buf.getLong();
        List<TokenInterval> intervals =
            (flags & FLAG_INTERVALS) != 0 ? readIntervals(path, buf, crcAt) : List.of();
        tables.add(
            new TableEntry(
                generation,
                (flags & FLAG_SEGREGATED) != 0,
                (flags & FLAG_QUARANTINED) != 0,
                minToken,
                maxToken,
                fileSizeBytes,
                cellCount,
                intervals));
      }
      if (buf.position() != crcAt) {
        throw new CorruptionException(path, buf.position(), "manifest has trailing bytes");
      }
      return new Manifest(sequence, nextGeneration, tables);
    } catch (IllegalArgumentException | java.nio.BufferUnderflowException e) {
      throw new CorruptionException(path, buf.position(), "invalid manifest: " + e);
    }
  }

  /** A table's quarantined intervals; the count is checked against the bytes left first. */
  private static List<TokenInterval> readIntervals(Path path, ByteBuffer buf, int crcAt)
      throws CorruptionException {
    if (crcAt - buf.position() < 2) {
      throw new CorruptionException(path, buf.position(), "manifest intervals truncated");
    }
    int n = Short.toUnsignedInt(buf.getShort());
    if (n < 1
        || n > TableEntry.MAX_QUARANTINED_INTERVALS
        || (long) n * INTERVAL_BYTES > crcAt - buf.position()) {
      throw new CorruptionException(path, buf.position() - 2, "manifest interval count " + n);
    }
    List<TokenInterval> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(new TokenInterval(buf.getLong(), buf.getLong()));
    }
    return out;
  }
}
