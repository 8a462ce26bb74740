package io.frsm.server.config;

/**
 * The smallest transport frame limit that carries every message a node may have to send, given its
 * storage engine's key and value limits. A node whose frame limit is smaller accepts writes it
 * cannot replicate: the sender drops the accept (frame too large), so the operation times out on
 * every attempt instead of failing as invalid. The loader and {@code FrsmNodeBuilder} both refuse
 * such a configuration.
 */
public final class FrameBudget {
  /**
   * The key bytes one page of a new range leader's key listing may hold (consensus {@code
   * Acceptor.MAX_LISTED_KEY_BYTES}); the page can exceed it by one key.
   */
  static final int LISTING_KEY_BYTES = 4 * 1024 * 1024;

  /**
   * Room for everything in a frame besides one key and one value or listing: the envelope header,
   * ballots, versions, round ids, and the length prefix of up to 1024 listed keys.
   */
  static final int ENVELOPE_MARGIN_BYTES = 64 * 1024;

  private FrameBudget() {}

  /**
   * {@code maxKeyBytes + max(maxValueBytes, 4 MiB) + 64 KiB}: an accept carrying the largest key
   * and value, and a key listing page, both fit.
   */
  public static long minimumFrameBytes(int maxKeyBytes, int maxValueBytes) {
    return (long) maxKeyBytes + Math.max(maxValueBytes, LISTING_KEY_BYTES) + ENVELOPE_MARGIN_BYTES;
  }
}
