package io.frsm.server.stream;

/**
 * Test-only seam on the source: may damage a chunk's bytes after its checksum was computed, as a
 * flipped bit on the way would. Production uses {@link #none()}. Called on the source's thread.
 */
@FunctionalInterface
public interface ChunkFaults {
  /** Returns the bytes to send (the same array, damaged in place, is fine). */
  byte[] onChunk(String fileName, long offset, byte[] data);

  static ChunkFaults none() {
    return (name, offset, data) -> data;
  }
}
