package io.frsm.server.stream;

/** One file of a range snapshot as the manifest lists it. */
record ManifestFile(String name, long length, int crc32c) {
  ManifestFile {
    if (length < 0) {
      throw new IllegalArgumentException("file " + name + " has a negative length " + length);
    }
  }
}
