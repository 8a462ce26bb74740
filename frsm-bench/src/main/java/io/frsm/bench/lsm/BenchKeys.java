package io.frsm.bench.lsm;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The benchmarks' keys and values: 16-byte keys that look random (so RocksDB's byte order spreads
 * them like frsm's token order does) and 512-byte incompressible values.
 *
 * <p>Key {@code i} is a pure function of {@code i}: a benchmark loads keys {@code [0, n)} and later
 * reads any of them back by index. Indexes at or above {@link #ABSENT_BASE} are never loaded, so
 * they make misses.
 */
public final class BenchKeys {
  public static final int KEY_BYTES = 16;
  public static final int VALUE_BYTES = 512;

  /** Keys from here on are never written by any benchmark. */
  public static final long ABSENT_BASE = 1L << 40;

  private BenchKeys() {}

  /** The key with index {@code i}: two SplitMix64 outputs, big-endian. A fresh array each call. */
  public static byte[] key(long i) {
    byte[] k = new byte[KEY_BYTES];
    putLong(k, 0, mix(i));
    putLong(k, 8, mix(i ^ 0x5DEECE66DL));
    return k;
  }

  /** A fresh 512-byte random value (incompressible, so RocksDB compression could not help). */
  public static byte[] value() {
    byte[] v = new byte[VALUE_BYTES];
    ThreadLocalRandom.current().nextBytes(v);
    return v;
  }

  /** Eight big-endian bytes of {@code v} at {@code offset}. */
  static void putLong(byte[] b, int offset, long v) {
    for (int i = 7; i >= 0; i--) {
      b[offset + i] = (byte) v;
      v >>>= 8;
    }
  }

  private static long mix(long z) {
    z += 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
