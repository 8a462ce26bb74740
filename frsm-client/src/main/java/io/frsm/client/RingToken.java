package io.frsm.client;

/**
 * A key's position on the ring, as every node computes it: the first half of MurmurHash3 x64/128
 * with seed 0 over the key's bytes. The client routes a key to the range holding this token, so it
 * must equal the nodes' {@code io.frsm.cell.Token} bit for bit; frsm-client does not depend on the
 * storage format module, so the function is written out here and pinned to the nodes' by {@code
 * RingTokenParityTest} (frsm-transport, which sees both).
 *
 * <p>DO NOT CHANGE: a token that differs from the nodes' sends every key to the wrong range (the
 * nodes would redirect each call, safely, but always).
 */
public final class RingToken {
  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;

  private RingToken() {}

  public static long of(byte[] key) {
    return of(key, 0, key.length);
  }

  public static long of(byte[] data, int offset, int length) {
    long h1 = 0;
    long h2 = 0;
    int blocks = length >>> 4;
    for (int i = 0; i < blocks; i++) {
      int p = offset + (i << 4);
      long k1 = littleEndianLong(data, p);
      long k2 = littleEndianLong(data, p + 8);
      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27) + h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31) + h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = offset + (blocks << 4);
    int rest = length & 15;
    long k1 = 0;
    long k2 = 0;
    for (int i = rest - 1; i >= 8; i--) {
      k2 ^= (data[tail + i] & 0xffL) << ((i - 8) << 3);
    }
    for (int i = Math.min(rest, 8) - 1; i >= 0; i--) {
      k1 ^= (data[tail + i] & 0xffL) << (i << 3);
    }
    if (rest > 8) {
      h2 ^= mixK2(k2);
    }
    if (rest > 0) {
      h1 ^= mixK1(k1);
    }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix(h1);
    h2 = fmix(h2);
    h1 += h2;
    return h1;
  }

  private static long mixK1(long k1) {
    k1 *= C1;
    k1 = Long.rotateLeft(k1, 31);
    return k1 * C2;
  }

  private static long mixK2(long k2) {
    k2 *= C2;
    k2 = Long.rotateLeft(k2, 33);
    return k2 * C1;
  }

  private static long fmix(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  private static long littleEndianLong(byte[] b, int p) {
    return (b[p] & 0xffL)
        | (b[p + 1] & 0xffL) << 8
        | (b[p + 2] & 0xffL) << 16
        | (b[p + 3] & 0xffL) << 24
        | (b[p + 4] & 0xffL) << 32
        | (b[p + 5] & 0xffL) << 40
        | (b[p + 6] & 0xffL) << 48
        | (b[p + 7] & 0xffL) << 56;
  }
}
