package io.frsm.client.transport;

import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.RecvByteBufAllocator;

/**
 * How large a buffer each socket read gets, on every frsm connection (client, peer, server side).
 *
 * <p>Netty reads a socket again whenever a read filled its buffer, and its default sizing shrinks
 * the buffer, step by step, after runs of small reads. frsm's frames alternate between small (a CAS
 * answer, an accept acknowledgement) and a value's size (a get's answer, a CAS request with a
 * 512-byte value), so a larger frame after small ones often took two reads; on a connection that
 * carries one operation at a time (an independent client) that is a {@code recvfrom} per frame
 * more. A floor of {@value #MIN_BYTES} bytes holds such a frame whole; buffers still grow to
 * {@value #MAX_BYTES} for batches, and each lives only until the frame decoder consumed it.
 * (docs/BENCHMARKS.md, 2026-11-29 late evening: 64 independent clients, 8 % fewer reads.)
 */
public final class ReadBuffers {
  static final int MIN_BYTES = 2048;
  static final int INITIAL_BYTES = 4096;
  static final int MAX_BYTES = 65536;

  private ReadBuffers() {}

  /** A fresh sizing policy (one per bootstrap; each channel keeps its own guess). */
  public static RecvByteBufAllocator allocator() {
    return new AdaptiveRecvByteBufAllocator(MIN_BYTES, INITIAL_BYTES, MAX_BYTES);
  }
}
