package io.frsm.consensus.core;

/**
 * {@link NodeCore#step} refused an input whose fields are outside {@link InputBounds}, before it
 * changed anything: the core is exactly as it was, so a driver may answer or drop that one input
 * and go on. The message names the field.
 *
 * <p>The edge (the transport's decoding, the node's admission of client operations) refuses such
 * input first; this is the core's own check behind it, so an edge check that was missed shows up in
 * tests instead of as an overflow deep in a run.
 */
public final class RefusedInputException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  RefusedInputException(String message) {
    super(message);
  }
}
