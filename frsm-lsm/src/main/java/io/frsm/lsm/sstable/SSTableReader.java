package io.frsm.lsm.sstable;

import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FileSystem;
import io.frsm.lsm.io.ReadableFile;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.NoSuchElementException;
import java.util.Objects;

/**
 * Reads one immutable SSTable (layout: {@link SSTableFormat}, docs/formats/sstable.md). Opening
 * verifies the footer, properties, bloom filter and block index and keeps them in memory; data
 * blocks are read on demand with one positional read each, verified against their checksum, and
 * shared through the {@link BlockCache}. Damage is reported as {@link CorruptionException} with the
 * file and the offset of the damaged block or section; damaged bytes are never returned as cells.
 *
 * <p>Thread-safe: {@link #get}, {@link #iterator} and {@link #scanTokens} may run on any number of
 * threads at once. REQUIRES: no call starts after {@link #close()} (the engine reference-counts
 * readers).
 */
public final class SSTableReader implements AutoCloseable {
  private final Path path;
  private final ReadableFile file;
  private final BlockCache cache;
  private final SSTableMetrics metrics;
  private final long readerId;
  private final SSTableMetadata metadata;
  private final BlockIndex index;
  private final BloomFilter bloom;
  private volatile boolean closed;

  private SSTableReader(
      Path path,
      ReadableFile file,
      BlockCache cache,
      SSTableMetrics metrics,
      SSTableMetadata metadata,
      BlockIndex index,
      BloomFilter bloom) {
    this.path = path;
    this.file = file;
    this.cache = cache;
    this.metrics = metrics;
    this.readerId = cache.newReaderId();
    this.metadata = metadata;
    this.index = index;
    this.bloom = bloom;
  }

  public static SSTableReader open(
      FileSystem fs, Path path, BlockCache cache, SSTableMetrics metrics) throws IOException {
    Objects.requireNonNull(cache, "cache");
    Objects.requireNonNull(metrics, "metrics");
    ReadableFile file = fs.openRead(path);
    try {
      long size = file.size();
      if (size < SSTableFormat.FOOTER_BYTES) {
        throw new CorruptionException(
            path, 0, "file of " + size + " bytes is shorter than an SSTable footer");
      }
      long footerOffset = size - SSTableFormat.FOOTER_BYTES;
      Footer footer =
          Footer.parse(
              read(file, path, footerOffset, SSTableFormat.FOOTER_BYTES), path, footerOffset);
      Footer.Section b = footer.bloom();
      BloomFilter bloom = BloomFilter.parse(read(file, path, b), path, b.offset());
      Footer.Section p = footer.properties();
      TableProperties properties = TableProperties.parse(read(file, path, p), path, p.offset());
      Footer.Section i = footer.index();
      BlockIndex index = BlockIndex.parse(read(file, path, i), path, i.offset());
      if (index.dataEnd() != b.offset()) {
        throw new CorruptionException(
            path, i.offset(), "block index does not end where the data blocks end");
      }
      SSTableMetadata metadata =
          new SSTableMetadata(
              path,
              size,
              properties.cellCount(),
              properties.firstKey(),
              properties.lastKey(),
              properties.maxWriteTimeMs(),
              properties.hasPurgeMarks(),
              footer.formatVersion());
      return new SSTableReader(path, file, cache, metrics, metadata, index, bloom);
    } catch (IOException | RuntimeException | Error e) {
      try {
        file.close();
      } catch (IOException suppressed) {
        e.addSuppressed(suppressed);
      }
      throw e;
    }
  }

  private static byte[] read(ReadableFile file, Path path, Footer.Section section)
      throws IOException {
    return read(file, path, section.offset(), section.length());
  }

  private static byte[] read(ReadableFile file, Path path, long offset, int length)
      throws IOException {
    byte[] bytes = new byte[length];
    try {
      file.readFully(ByteBuffer.wrap(bytes), offset);
    } catch (EOFException e) {
      throw new CorruptionException(path, offset, "section runs past the end of the file", e);
    }
    return bytes;
  }

  public SSTableMetadata metadata() {
    return metadata;
  }

  long readerId() {
    return readerId;
  }

  /** For tests that aim damage at one block. */
  BlockIndex index() {
    return index;
  }

  /** The number of data blocks (the scrub walks them by number). */
  public int blockCount() {
    return index.blockCount();
  }

  /** The stored length of data block {@code b}, in bytes. */
  public int blockLength(int b) {
    return index.length(b);
  }

  /**
   * The tokens data block {@code b} may hold: from the previous block's last token (keys are
   * ordered by token first, so a token can straddle two blocks) or the table's first token, to its
   * own last token. Comes from the verified index, so it holds even if the block is damaged.
   */
  public io.frsm.lsm.manifest.TokenInterval blockTokens(int b) {
    long from = b == 0 ? metadata.firstKey().token() : index.lastToken(b - 1);
    return new io.frsm.lsm.manifest.TokenInterval(from, index.lastToken(b));
  }

  /**
   * The number of the data block that starts at file offset {@code offset} (where a {@link
   * CorruptionException} from a block read points), or -1 if the offset is not a block's start:
   * damage outside a data block.
   */
  public int dataBlockAt(long offset) {
    return index.blockAt(offset);
  }

  /**
   * Reads data block {@code b} from disk (never from the cache: the scrub must see the stored
   * bytes) and verifies its checksum and every cell in it. Returns the bytes read.
   *
   * @throws CorruptionException naming the block's offset if it is damaged
   */
  public int verifyBlock(int b) throws IOException {
    ensureOpen();
    long offset = index.offset(b);
    byte[] bytes = read(file, path, offset, index.length(b));
    DataBlock block = DataBlock.parse(bytes, path, offset);
    for (int i = 0; i < block.count(); i++) {
      block.cell(i, path, offset);
    }
    return bytes.length;
  }

  /**
   * False if the table certainly does not hold {@code key}: it lies outside the table's key range,
   * or the bloom filter rules it out (counted in {@code frsm.sstable.bloom.negatives}).
   */
  public boolean mightContain(Key key) {
    if (key.compareTo(metadata.firstKey()) < 0 || key.compareTo(metadata.lastKey()) > 0) {
      return false;
    }
    if (!bloom.mightContain(key)) {
      metrics.bloomNegative();
      return false;
    }
    return true;
  }

  /**
   * The cell stored for {@code key}, or null. Consults the bloom filter itself, then reads the one
   * block that can hold the key.
   *
   * @throws CorruptionException naming the file and the block offset if that block is damaged
   */
  public Cell get(Key key) throws IOException {
    ensureOpen();
    if (!mightContain(key)) {
      return null;
    }
    int b = index.ceilingBlock(key.token(), key.bytesUnsafe());
    assert b < index.blockCount() : "the last block ends with the table's last key";
    DataBlock block = block(b, true);
    int entry = block.find(key);
    if (entry < 0) {
      metrics.bloomFalsePositive();
      return null;
    }
    return block.cell(entry, path, index.offset(b));
  }

  /**
   * Cells with keys in {@code [fromInclusive, toExclusive)}, in key order; null bounds are open.
   * Blocks read by iterators are taken from the cache but not added to it, so compactions and range
   * scans do not evict the blocks point reads keep hot.
   */
  public CellIterator iterator(Key fromInclusive, Key toExclusive) throws IOException {
    ensureOpen();
    if (fromInclusive != null && toExclusive != null && fromInclusive.compareTo(toExclusive) >= 0) {
      return new TableIterator(index.blockCount(), 0, null, null, Long.MAX_VALUE);
    }
    if (fromInclusive == null) {
      return new TableIterator(0, Long.MIN_VALUE, null, toExclusive, Long.MAX_VALUE);
    }
    long token = fromInclusive.token();
    byte[] bytes = fromInclusive.bytesUnsafe();
    return new TableIterator(
        index.ceilingBlock(token, bytes), token, bytes, toExclusive, Long.MAX_VALUE);
  }

  /**
   * Cells whose key token lies in {@code [fromTokenInclusive, toTokenInclusive]}, in key order: one
   * contiguous run of the table, since keys are ordered by token first.
   */
  public CellIterator scanTokens(long fromTokenInclusive, long toTokenInclusive)
      throws IOException {
    ensureOpen();
    if (fromTokenInclusive > toTokenInclusive) {
      return new TableIterator(index.blockCount(), 0, null, null, Long.MAX_VALUE);
    }
    return new TableIterator(
        index.ceilingBlock(fromTokenInclusive, null),
        fromTokenInclusive,
        null,
        null,
        toTokenInclusive);
  }

  /**
   * The keys of {@link #scanTokens}'s cells, read without decoding the cells' values: for listings,
   * which need the keys only.
   */
  public KeyIterator scanKeyTokens(long fromTokenInclusive, long toTokenInclusive) {
    ensureOpen();
    return new TableKeyIterator(this, fromTokenInclusive, toTokenInclusive);
  }

  /**
   * Every cell of every data block that verifies, in key order; a block that fails its checksum or
   * decoding is skipped whole. For rewriting a table without its damaged blocks once the replica's
   * range was repaired from the other replicas (the skipped cells are then stale by construction).
   */
  public CellIterator salvage() throws IOException {
    ensureOpen();
    return new SalvageIterator();
  }

  private final class SalvageIterator implements CellIterator {
    private int blockIndex;
    private DataBlock block;
    private int entry;
    private Cell next;

    @Override
    public boolean hasNext() throws IOException {
      while (next == null) {
        if (block == null) {
          if (blockIndex >= index.blockCount()) {
            return false;
          }
          ensureOpen();
          long offset = index.offset(blockIndex);
          try {
            DataBlock loaded =
                DataBlock.parse(read(file, path, offset, index.length(blockIndex)), path, offset);
            for (int i = 0; i < loaded.count(); i++) {
              loaded.cell(i, path, offset);
            }
            block = loaded;
            entry = 0;
          } catch (CorruptionException damaged) {
            blockIndex++;
            continue;
          }
        }
        if (entry >= block.count()) {
          block = null;
          blockIndex++;
          continue;
        }
        next = block.cell(entry++, path, index.offset(blockIndex));
      }
      return true;
    }

    @Override
    public Cell next() throws IOException {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Cell cell = next;
      next = null;
      return cell;
    }

    @Override
    public void close() {
      block = null;
      next = null;
    }
  }

  /** Closes the file and drops this table's blocks from the cache. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    cache.invalidate(readerId);
    try {
      file.close();
    } catch (IOException e) {
      // A read-only descriptor holds no data that could be lost: nothing to report.
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("SSTable reader is closed: " + path);
    }
  }

  /**
   * Block {@code b} for a key scan: from the cache if there (never added to it), else read into
   * {@code buffer} if it is long enough ({@link #blockLength}), so a scan reuses one array for all
   * the blocks it reads. The caller owns {@code buffer}: a block read into it is valid until the
   * buffer's next use.
   */
  DataBlock scanBlock(int b, byte[] buffer) throws IOException {
    ensureOpen();
    long offset = index.offset(b);
    DataBlock cached = cache.get(readerId, offset);
    if (cached != null) {
      metrics.blockCacheHit();
      return cached;
    }
    int length = index.length(b);
    byte[] into = buffer.length >= length ? buffer : new byte[length];
    try {
      file.readFully(ByteBuffer.wrap(into, 0, length), offset);
    } catch (EOFException e) {
      throw new CorruptionException(path, offset, "section runs past the end of the file", e);
    }
    metrics.blockRead();
    return DataBlock.parse(into, length, path, offset);
  }

  /** Block {@code b}, verified, from the cache or from one positional read. */
  private DataBlock block(int b, boolean fillCache) throws IOException {
    long offset = index.offset(b);
    DataBlock cached = cache.get(readerId, offset);
    if (cached != null) {
      metrics.blockCacheHit();
      return cached;
    }
    byte[] bytes = read(file, path, offset, index.length(b));
    metrics.blockRead();
    DataBlock block = DataBlock.parse(bytes, path, offset);
    if (fillCache) {
      cache.put(readerId, offset, block);
    }
    return block;
  }

  /**
   * Walks blocks from a start position to an end bound. The start is {@code (startToken, startKey)}
   * within block {@code blockIndex} (null key: the token's first key); the end is the first key at
   * or above {@code endKeyExclusive} or with a token above {@code endTokenInclusive}.
   */
  private final class TableIterator implements CellIterator {
    private final Key endKeyExclusive;
    private final long endTokenInclusive;
    private final long startToken;
    private final byte[] startKey;
    private boolean seekInBlock = true; // the first block is entered at the start position
    private int blockIndex;
    private DataBlock block;
    private int entry;
    private Cell next;
    private boolean done;

    TableIterator(
        int blockIndex,
        long startToken,
        byte[] startKey,
        Key endKeyExclusive,
        long endTokenInclusive) {
      this.blockIndex = blockIndex;
      this.startToken = startToken;
      this.startKey = startKey;
      this.endKeyExclusive = endKeyExclusive;
      this.endTokenInclusive = endTokenInclusive;
    }

    @Override
    public boolean hasNext() throws IOException {
      while (next == null && !done) {
        if (block == null) {
          if (blockIndex >= index.blockCount()) {
            done = true;
            break;
          }
          ensureOpen();
          DataBlock loaded = block(blockIndex, false);
          entry = seekInBlock ? loaded.ceiling(startToken, startKey) : 0;
          seekInBlock = false;
          block = loaded;
        }
        if (entry >= block.count()) {
          block = null;
          blockIndex++;
          continue;
        }
        long token = block.token(entry);
        if (token > endTokenInclusive
            || (endKeyExclusive != null && token > endKeyExclusive.token())) {
          done = true;
          break;
        }
        Cell cell = block.cell(entry, path, index.offset(blockIndex));
        if (endKeyExclusive != null && cell.key().compareTo(endKeyExclusive) >= 0) {
          done = true;
          break;
        }
        entry++;
        next = cell;
      }
      return next != null;
    }

    @Override
    public Cell next() throws IOException {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      Cell cell = next;
      next = null;
      return cell;
    }

    @Override
    public void close() {
      done = true;
      block = null;
      next = null;
    }
  }
}
