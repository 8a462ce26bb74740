package io.frsm.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.client.transport.UnknownFields;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.Message;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A {@code PeerEnvelope} read without the generated classes: the header's fields, and the body's
 * bytes, which {@link PeerBodyReader} turns into a core message once {@link PeerFraming} checked
 * the header. One object per frame where the generated parser built an envelope, its builder and
 * the body's builders and messages.
 *
 * <p>Reads as protobuf's {@code PeerEnvelope.parseFrom(CodedInputStream)} does (held to it by
 * {@code PeerBodyReaderTest}): fields in any order, the last of a repeated header field wins, the
 * cluster id must be UTF-8, unknown fields and known numbers with another wire type are skipped
 * ({@link UnknownFields}), and a top-level end-group tag ends the envelope. The body is a oneof:
 * the last body field read names the message, and — as in protobuf-java's builders, which keep each
 * case's builder — the message is every occurrence of that field merged, earlier ones before
 * another case included (merging two encodings of a message is reading their concatenation). Bodies
 * are syntax-checked when the message is asked for, after the header checks; a keep-alive's when it
 * is read.
 *
 * <p>The body's bytes are a view of the frame when the frame's reader allows aliasing (its array is
 * alive until {@code FrameDecoder.EnvelopeReader#read} returns, and the message is read before
 * that); the decoded message copies every bytes field it keeps.
 */
final class PeerEnvelopeReader implements PeerWireCodec.Envelope<Message> {
  private static final int KEEPALIVE_FIELD = 25;

  /** The depth protobuf's parser counts for the envelope's own fields (UnknownFields). */
  private static final int ENVELOPE_DEPTH = 0;

  private final FrsmPeerWireCodec.ClusterIds clusterIds;
  private int protocolVersion;
  private ByteString clusterId = ByteString.EMPTY;
  private int senderNodeId;
  private int bodyField;
  private ByteString body;

  /** Earlier body cases' bytes, kept only when a frame switches cases (never sent by frsm). */
  private Map<Integer, ByteString> otherBodies;

  /** Whether the body fields read so far were checked one by one (only when there are several). */
  private boolean piecesChecked;

  private PeerEnvelopeReader(FrsmPeerWireCodec.ClusterIds clusterIds) {
    this.clusterIds = clusterIds;
  }

  /**
   * Reads one envelope's header and body bytes from {@code in}.
   *
   * @throws WireDecodeException if the bytes are not a peer envelope
   */
  static PeerEnvelopeReader read(CodedInputStream in, FrsmPeerWireCodec.ClusterIds clusterIds)
      throws WireDecodeException {
    PeerEnvelopeReader envelope = new PeerEnvelopeReader(clusterIds);
    try {
      envelope.readFields(in);
    } catch (InvalidProtocolBufferException e) {
      throw unparsable(e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable peer envelope: " + e.getMessage(), e);
    }
    return envelope;
  }

  private void readFields(CodedInputStream in) throws IOException {
    while (true) {
      int tag = in.readTag();
      switch (tag) {
        case 0 -> {
          keepaliveCheck();
          return;
        }
        case 1 << 3 -> protocolVersion = in.readUInt32();
        case 2 << 3 | 2 -> {
          ByteString id = in.readBytes();
          if (!id.isValidUtf8()) {
            throw new InvalidProtocolBufferException(
                "Protocol message had invalid UTF-8."); // protobuf's text
          }
          clusterId = id;
        }
        case 3 << 3 -> senderNodeId = in.readUInt32();
        default -> {
          int field = tag >>> 3;
          if ((tag & 7) == 2 && field >= PeerBodyReader.FIRST_BODY && field <= KEEPALIVE_FIELD) {
            bodyField(field, in.readBytes());
          } else if (!UnknownFields.skip(in, tag, ENVELOPE_DEPTH)) {
            // An end-group tag ends the envelope: protobuf's parseFrom(CodedInputStream) stops
            // there without an error.
            keepaliveCheck();
            return;
          }
        }
      }
    }
  }

  private void bodyField(int field, ByteString bytes) throws IOException {
    if (bodyField != 0) {
      // A second body field (never sent by frsm): protobuf parsed each as it came, so a bad one
      // was refused even when a later one replaced or completed it. Check each on its own.
      if (!piecesChecked) {
        PeerBodyReader.checkSyntax(bodyField, body);
        piecesChecked = true;
      }
      PeerBodyReader.checkSyntax(field, bytes);
    }
    if (field == bodyField) {
      body = body.concat(bytes);
      return;
    }
    if (bodyField != 0) {
      if (otherBodies == null) {
        otherBodies = new HashMap<>();
      }
      otherBodies.put(bodyField, body);
    }
    ByteString earlier = otherBodies == null ? null : otherBodies.remove(field);
    bodyField = field;
    body = earlier == null ? bytes : earlier.concat(bytes);
  }

  /**
   * A keep-alive's body is parsed with the envelope, as protobuf did: it must be well formed,
   * nested groups in it counted from the envelope's depth (which its generated parser would not
   * do).
   */
  private void keepaliveCheck() throws IOException {
    if (bodyField == KEEPALIVE_FIELD) {
      PeerBodyReader.checkSyntax(KEEPALIVE_FIELD, body);
    }
  }

  private static WireDecodeException unparsable(InvalidProtocolBufferException e) {
    return new WireDecodeException("unparsable peer envelope: " + e.getMessage(), e);
  }

  @Override
  public int protocolVersion() {
    return protocolVersion;
  }

  @Override
  public String clusterId() {
    return clusterIds.text(clusterId);
  }

  @Override
  public int senderNodeId() {
    return senderNodeId;
  }

  @Override
  public boolean keepalive() {
    return bodyField == KEEPALIVE_FIELD;
  }

  @Override
  public Message body() throws WireDecodeException {
    if (bodyField == KEEPALIVE_FIELD) {
      throw new WireDecodeException("a keep-alive carries no message (framing reads it)");
    }
    if (bodyField == 0) {
      throw new WireDecodeException("peer envelope without a (known) message body");
    }
    try {
      return PeerBodyReader.read(bodyField, body.newCodedInput());
    } catch (InvalidProtocolBufferException e) {
      throw unparsable(e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable peer envelope: " + e.getMessage(), e);
    } catch (IllegalArgumentException | NullPointerException e) {
      // The records' own invariants are the last check: whatever they refuse is a bad frame,
      // never an exception for the node to handle.
      throw new WireDecodeException("peer message violates an invariant: " + e.getMessage(), e);
    }
  }
}
