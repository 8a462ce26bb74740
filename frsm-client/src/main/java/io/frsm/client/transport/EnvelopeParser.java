package io.frsm.client.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import java.io.IOException;

/**
 * Parses one protobuf envelope type from a frame and reports any failure as a {@link
 * WireDecodeException} naming the envelope, so that the transport closes the connection and logs
 * why. Every envelope of every protocol on frsm's framing is read through one (peer, client, and a
 * benchmark's own). Thread-safe (immutable).
 *
 * @param <E> the generated envelope class
 */
public final class EnvelopeParser<E extends MessageLite> {

  /** A generated envelope's own parser, e.g. {@code PeerEnvelope::parseFrom}. */
  @FunctionalInterface
  public interface ParseFrom<E> {
    E parseFrom(CodedInputStream in) throws IOException;
  }

  private final String envelopeName;
  private final ParseFrom<E> parseFrom;

  /**
   * @param envelopeName names the envelope in errors: "peer" gives "unparsable peer envelope: ..."
   */
  public EnvelopeParser(String envelopeName, ParseFrom<E> parseFrom) {
    this.envelopeName = envelopeName;
    this.parseFrom = parseFrom;
  }

  /**
   * The envelope in {@code in}; retains nothing of {@code in}.
   *
   * @throws WireDecodeException if the bytes are not such an envelope
   */
  public E parse(CodedInputStream in) throws WireDecodeException {
    try {
      return parseFrom.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException(
          "unparsable " + envelopeName + " envelope: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new WireDecodeException(
          "unreadable " + envelopeName + " envelope: " + e.getMessage(), e);
    }
  }
}
