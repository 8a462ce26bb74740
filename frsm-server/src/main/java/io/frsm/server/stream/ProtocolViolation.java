package io.frsm.server.stream;

/**
 * The other end sent what the stream protocol does not allow: the connection is dropped and the
 * receiver resumes on a new one (a bounded number of times).
 */
final class ProtocolViolation extends StreamException {
  ProtocolViolation(String message) {
    super("protocol violation: " + message);
  }
}
