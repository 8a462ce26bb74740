package io.frsm.lsm;

/** A key or value exceeds the configured limit. Nothing was written. */
public final class OversizedCellException extends IllegalArgumentException {
  public OversizedCellException(String what, int sizeBytes, int limitBytes, String configKey) {
    super(
        what
            + " of "
            + sizeBytes
            + " bytes exceeds the limit of "
            + limitBytes
            + " bytes ("
            + configKey
            + "); nothing was written");
  }
}
