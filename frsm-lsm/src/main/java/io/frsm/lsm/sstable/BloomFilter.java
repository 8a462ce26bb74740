package io.frsm.lsm.sstable;

import io.frsm.cell.Key;
import io.frsm.lsm.CorruptionException;
import java.nio.ByteBuffer;
import java.nio.file.Path;

/**
 * A classic bloom filter over a table's keys, written and read side by side.
 *
 * <p>Hashing (Kirsch and Mitzenmacher's double hashing): {@code h1} is the key's token (already a
 * MurmurHash3 of the bytes), {@code h2} an independent FNV-1a hash of the bytes with a MurmurHash3
 * finalizer; probe {@code i} sets bit {@code ((h1 + i*h2) >>> 32) * numBits >>> 32}, a
 * multiply-shift range reduction that needs no division. {@code numHashes = round(bitsPerKey * ln
 * 2)}, the optimum: 7 for 10 bits per key, about 0.8% false positives.
 *
 * <pre>
 *   payload = u32 numHashes, u32 numWords, u64 word x numWords   (bit b is word b/64, bit b%64)
 *   section = payload, u32 crc32c(payload)
 * </pre>
 *
 * numHashes = 0 (and numWords = 0) is a table written without a filter: every key might be there.
 *
 * <p>DO NOT CHANGE the hash functions or the bit mapping: filters are written to disk.
 *
 * <p>Adding is not thread-safe; a filter that is only read is.
 */
final class BloomFilter {
  /** The multiply-shift reduction maps the high 32 bits of a hash, so at most 2^32 bits. */
  static final long MAX_BITS = 1L << 32;

  private final long[] words;
  private final int numHashes;
  private final long numBits;

  private BloomFilter(long[] words, int numHashes) {
    this.words = words;
    this.numHashes = numHashes;
    this.numBits = (long) words.length * 64;
  }

  /**
   * An empty filter sized for {@code expectedKeys} at {@code bitsPerKey}; 0 bits per key means no
   * filter. Past 2^32 bits (about 400 million keys at 10 bits) the false-positive rate rises.
   */
  static BloomFilter forKeys(long expectedKeys, int bitsPerKey) {
    if (bitsPerKey == 0) {
      return new BloomFilter(new long[0], 0);
    }
    long bits = Math.min(MAX_BITS, Math.max(64, Math.max(1, expectedKeys) * bitsPerKey));
    int numHashes =
        (int) Math.max(1, Math.min(SSTableFormat.MAX_BLOOM_HASHES, Math.round(bitsPerKey * 0.69)));
    return new BloomFilter(new long[(int) ((bits + 63) / 64)], numHashes);
  }

  void add(Key key) {
    if (numHashes == 0) {
      return;
    }
    long h1 = key.token();
    long h2 = secondHash(key.bytesUnsafe());
    for (int i = 0; i < numHashes; i++) {
      long bit = bitIndex(h1 + i * h2);
      words[(int) (bit >>> 6)] |= 1L << bit;
    }
  }

  boolean mightContain(Key key) {
    if (numHashes == 0) {
      return true;
    }
    long h1 = key.token();
    long h2 = secondHash(key.bytesUnsafe());
    for (int i = 0; i < numHashes; i++) {
      long bit = bitIndex(h1 + i * h2);
      if ((words[(int) (bit >>> 6)] & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  private long bitIndex(long hash) {
    // (hash >>> 32) < 2^32 and numBits <= 2^32: the product fits in 64 unsigned bits.
    return ((hash >>> 32) * numBits) >>> 32;
  }

  /** FNV-1a over the bytes, then the MurmurHash3 64-bit finalizer to spread the low-entropy FNV. */
  static long secondHash(byte[] key) {
    long h = 0xcbf29ce484222325L;
    for (byte b : key) {
      h ^= b & 0xff;
      h *= 0x100000001b3L;
    }
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    h *= 0xc4ceb9fe1a85ec53L;
    h ^= h >>> 33;
    return h;
  }

  int numHashes() {
    return numHashes;
  }

  long numBits() {
    return numBits;
  }

  int sectionBytes() {
    return 8 + words.length * 8 + SSTableFormat.CHECKSUM_BYTES;
  }

  byte[] toSection() {
    byte[] section = new byte[sectionBytes()];
    ByteBuffer out = ByteBuffer.wrap(section);
    out.putInt(numHashes);
    out.putInt(words.length);
    out.asLongBuffer().put(words);
    int payload = section.length - SSTableFormat.CHECKSUM_BYTES;
    SSTableFormat.putInt(section, payload, SSTableFormat.crc32c(section, 0, payload));
    return section;
  }

  static BloomFilter parse(byte[] section, Path file, long offset) throws CorruptionException {
    int payload = SSTableFormat.verifiedPayloadLength(section, file, offset, "bloom filter");
    if (payload < 8) {
      throw new CorruptionException(file, offset, "bloom filter header truncated");
    }
    int numHashes = SSTableFormat.getInt(section, 0);
    int numWords = SSTableFormat.getInt(section, 4);
    if (numHashes < 0
        || numHashes > SSTableFormat.MAX_BLOOM_HASHES
        || numWords < 0
        || (numHashes == 0) != (numWords == 0)
        || (long) numWords * 64 > MAX_BITS
        || 8 + (long) numWords * 8 != payload) {
      throw new CorruptionException(
          file, offset, "bloom filter header: " + numHashes + " hashes, " + numWords + " words");
    }
    long[] words = new long[numWords];
    ByteBuffer.wrap(section, 8, numWords * 8).asLongBuffer().get(words);
    return new BloomFilter(words, numHashes);
  }
}
