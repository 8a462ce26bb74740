package io.frsm.server.node;

import io.frsm.consensus.core.Input;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The node's durable hand-off bases (docs/PROTOCOL.md "The durable base", docs/FORMATS.md "Hand-off
 * base records"): one file per range, {@code <data>/handoff-base/range-<n>}, saying that this node
 * shipped term {@code term} of the range from leader-only mode under ring version {@code
 * ringVersion} and that the range's cells were flushed first. Written only after the flush is
 * durable; deleted when the core drops the base; read back at start and fed to the core as {@link
 * Input.RestoreBase}.
 *
 * <p>A file is trusted only if every check passes — size, CRC32C, magic, version, cluster id, node
 * id, range (the file's name), numbers in range. Anything else (torn, flipped, foreign, of another
 * version) is logged at WARNING, counted, deleted and never fed: the range scans, which is always
 * safe.
 *
 * <pre>
 *   record := magic:u32 version:u16 node:u32 clusterIdLength:u16 clusterId:utf8
 *             range:u32 term:u64 ringVersion:u64 [kind:u8, version 2] crc:u32
 * </pre>
 *
 * Big-endian; {@code crc} is the CRC32C of every byte before it. Version 2 adds {@code kind}: 0 a
 * graceful base (shipped from leader-only mode), 1 an entry base (docs/PROTOCOL.md "A killed
 * holder: covering its term": the cells hold every value chosen <em>before</em> the term). Version
 * 1 has no kind and is read as a graceful base (it was written only at shipments). A version-1
 * reader refuses version 2 as another version: that range scans. DO NOT CHANGE: written to disk.
 */
final class HandOffBaseRecords {
  static final String DIRECTORY = "handoff-base";
  static final int MAGIC = 0x46524842; // "FRHB"
  static final short VERSION = 2;

  /** Records of this version carry no kind: each is a graceful base. */
  static final short VERSION_WITHOUT_KIND = 1;

  static final byte KIND_GRACEFUL = 0;
  static final byte KIND_ENTRY = 1;
  static final int MAX_CLUSTER_ID_BYTES = 255;
  private static final String PREFIX = "range-";
  private static final String TEMP_SUFFIX = ".tmp";
  private static final System.Logger LOG = System.getLogger(HandOffBaseRecords.class.getName());

  private final Path directory;
  private final byte[] clusterId;
  private final int nodeId;
  private volatile long untrusted; // written by the starting thread only

  HandOffBaseRecords(Path dataDirectory, String clusterId, int nodeId) {
    this.directory = dataDirectory.resolve(DIRECTORY);
    this.clusterId = clusterId.getBytes(StandardCharsets.UTF_8);
    if (this.clusterId.length > MAX_CLUSTER_ID_BYTES) {
      throw new IllegalArgumentException("cluster id longer than 255 bytes: " + clusterId);
    }
    if (nodeId < 0) {
      throw new IllegalArgumentException("node id < 0: " + nodeId);
    }
    this.nodeId = nodeId;
  }

  /** Records found at start that were not trusted (and were deleted). */
  long untrusted() {
    return untrusted;
  }

  /**
   * Writes the record of {@code range} durably: to a temporary file, forced, renamed over the old
   * one atomically, the directory forced. REQUIRES: the range's cells were flushed durably first.
   */
  void record(int range, long term, long ringVersion, boolean entry) throws IOException {
    if (range < 0 || term < 1 || ringVersion < 0) {
      throw new IllegalArgumentException(range + "/" + term + "/" + ringVersion);
    }
    Files.createDirectories(directory);
    Path file = directory.resolve(PREFIX + range);
    Path temp = directory.resolve(PREFIX + range + TEMP_SUFFIX);
    DurableFiles.replace(file, temp, encode(range, term, ringVersion, entry));
  }

  /** A graceful base's record. */
  void record(int range, long term, long ringVersion) throws IOException {
    record(range, term, ringVersion, false);
  }

  /** Deletes the record of {@code range} durably, if there is one. */
  void drop(int range) throws IOException {
    if (Files.deleteIfExists(directory.resolve(PREFIX + range))) {
      forceDirectory();
    }
  }

  /**
   * The trusted records, in no particular order, as the core's inputs; every other file of the
   * directory is logged, counted and deleted (leftover temporary files silently: a crash
   * mid-write).
   */
  List<Input.RestoreBase> load() throws IOException {
    List<Input.RestoreBase> trusted = new ArrayList<>();
    if (!Files.isDirectory(directory)) {
      return trusted;
    }
    boolean deleted = false;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(TEMP_SUFFIX)) {
          Files.deleteIfExists(file);
          deleted = true;
          continue;
        }
        Input.RestoreBase r = read(file, name);
        if (r != null) {
          trusted.add(r);
        } else {
          untrusted++;
          Files.deleteIfExists(file);
          deleted = true;
        }
      }
    }
    if (deleted) {
      forceDirectory();
    }
    return trusted;
  }

  /** Deletes every record (untrusted ones logged as by {@link #load}). */
  void dropAll() throws IOException {
    for (Input.RestoreBase r : load()) {
      drop(r.range());
    }
  }

  private Input.RestoreBase read(Path file, String name) {
    int range;
    try {
      range = name.startsWith(PREFIX) ? Integer.parseInt(name.substring(PREFIX.length())) : -1;
    } catch (NumberFormatException e) {
      range = -1;
    }
    if (range < 0) {
      return untrusted(file, "not a hand-off base record's name");
    }
    byte[] bytes;
    try {
      long size = Files.size(file);
      if (size > maxBytes()) {
        return untrusted(file, "a record of " + size + " bytes");
      }
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      return untrusted(file, "unreadable: " + e);
    }
    return decode(file, range, bytes);
  }

  private Input.RestoreBase decode(Path file, int fileRange, byte[] bytes) {
    if (bytes.length < minBytes(VERSION_WITHOUT_KIND) || bytes.length > maxBytes()) {
      return untrusted(file, "a record of " + bytes.length + " bytes");
    }
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    ByteBuffer buf = ByteBuffer.wrap(bytes);
    if ((int) crc.getValue() != buf.getInt(bytes.length - 4)) {
      return untrusted(file, "checksum mismatch");
    }
    if (buf.getInt() != MAGIC) {
      return untrusted(file, "not a hand-off base record");
    }
    short version = buf.getShort();
    if (version != VERSION && version != VERSION_WITHOUT_KIND) {
      return untrusted(file, "a hand-off base record of version " + version);
    }
    int node = buf.getInt();
    int idLength = Short.toUnsignedInt(buf.getShort());
    if (bytes.length != minBytes(version) + idLength) {
      return untrusted(file, "cluster id length " + idLength + " does not fit the record");
    }
    byte[] id = new byte[idLength];
    buf.get(id);
    if (node != nodeId || !java.util.Arrays.equals(id, clusterId)) {
      return untrusted(
          file,
          "written by node "
              + node
              + " of cluster \""
              + new String(id, StandardCharsets.UTF_8)
              + "\", not this node");
    }
    int range = buf.getInt();
    long term = buf.getLong();
    long ringVersion = buf.getLong();
    byte kind = version == VERSION_WITHOUT_KIND ? KIND_GRACEFUL : buf.get();
    if (range != fileRange || term < 1 || ringVersion < 0) {
      return untrusted(file, "range " + range + ", term " + term + ", ring " + ringVersion);
    }
    if (kind != KIND_GRACEFUL && kind != KIND_ENTRY) {
      return untrusted(file, "kind " + kind);
    }
    return new Input.RestoreBase(range, term, ringVersion, kind == KIND_ENTRY);
  }

  byte[] encode(int range, long term, long ringVersion, boolean entry) {
    return encode(VERSION, range, term, ringVersion, entry);
  }

  /** A graceful base's record (tests). */
  byte[] encode(int range, long term, long ringVersion) {
    return encode(range, term, ringVersion, false);
  }

  /** {@code version} {@link #VERSION_WITHOUT_KIND}: as the previous release wrote it (tests). */
  byte[] encode(short version, int range, long term, long ringVersion, boolean entry) {
    if (version == VERSION_WITHOUT_KIND && entry) {
      throw new IllegalArgumentException("version 1 records have no kind: graceful only");
    }
    ByteBuffer buf = ByteBuffer.allocate(minBytes(version) + clusterId.length);
    buf.putInt(MAGIC).putShort(version).putInt(nodeId);
    buf.putShort((short) clusterId.length).put(clusterId);
    buf.putInt(range).putLong(term).putLong(ringVersion);
    if (version != VERSION_WITHOUT_KIND) {
      buf.put(entry ? KIND_ENTRY : KIND_GRACEFUL);
    }
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, buf.position());
    buf.putInt((int) crc.getValue());
    return buf.array();
  }

  /** The record's bytes without the cluster id. */
  private static int minBytes(short version) {
    return 4 + 2 + 4 + 2 + 4 + 8 + 8 + (version == VERSION_WITHOUT_KIND ? 0 : 1) + 4;
  }

  private static int maxBytes() {
    return minBytes(VERSION) + MAX_CLUSTER_ID_BYTES;
  }

  private static Input.RestoreBase untrusted(Path file, String why) {
    LOG.log(
        System.Logger.Level.WARNING,
        "hand-off base record {0} not trusted ({1}): deleted, the range will be scanned",
        file,
        why);
    return null;
  }

  private void forceDirectory() throws IOException {
    DurableFiles.forceDirectory(directory);
  }
}
