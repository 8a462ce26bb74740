package io.frsm.cell;

/**
 * Bytes that do not decode as a cell. The caller (commit-log reader, SSTable reader) knows the file
 * and offset and turns this into a {@link io.frsm.lsm.CorruptionException}.
 */
public final class MalformedCellException extends Exception {
  public MalformedCellException(String message) {
    super(message);
  }
}
