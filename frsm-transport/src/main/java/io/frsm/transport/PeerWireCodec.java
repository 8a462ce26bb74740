package io.frsm.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import io.frsm.client.transport.WireDecodeException;

/**
 * One peer protocol's envelope format, for {@link FramedPeerTransport}: how one message becomes a
 * protobuf envelope and back. frsm's Paxos protocol is one ({@code peer.proto}); a benchmark
 * baseline can bring its own over the same transport.
 *
 * <p>Wire convention every envelope follows (docs/formats/wire.md): fields 1–3 are the header,
 * {@code uint32 protocol_version = 1; string cluster_id = 2; uint32 sender_node_id = 3;}, and the
 * body is a {@code oneof} at higher field numbers. Protocols sharing a port range should use
 * disjoint body field numbers, so that a frame of one protocol sent to another's port parses as an
 * envelope without a body and is refused.
 *
 * <p>The transport checks the header (version, cluster id, sender) before it asks for the body, so
 * a frame from another cluster or protocol version never reaches the body decoder. Implementations
 * must be thread-safe: the transport calls them from callers' threads and event loops at once.
 *
 * @param <M> the protocol's message type
 */
public interface PeerWireCodec<M> {

  /** Names the protocol in logs, e.g. "frsm peer". */
  String protocolName();

  /** The one version this codec writes and accepts; never 0 (an absent field reads as 0). */
  int protocolVersion();

  /**
   * The envelope of one message: the header fields as given, the message as its body. Throws {@link
   * IllegalArgumentException} for a message the protocol cannot carry.
   */
  MessageLite encode(int protocolVersion, String clusterId, int senderNodeId, M message);

  /**
   * The envelopes of one sender: {@link #encode} with the header fixed. A protocol whose envelopes
   * can be written without building them (frsm's: {@code DirectPeerEnvelope}) overrides this to
   * prepare the header once; the bytes must equal {@link #encode}'s.
   */
  default Encoder<M> encoder(int protocolVersion, String clusterId, int senderNodeId) {
    return message -> encode(protocolVersion, clusterId, senderNodeId, message);
  }

  /** Turns a message into its envelope, the header fixed ({@link #encoder}). Thread-safe. */
  @FunctionalInterface
  interface Encoder<M> {
    /** Throws {@link IllegalArgumentException} for a message the protocol cannot carry. */
    MessageLite encode(M message);
  }

  /**
   * Parses one envelope without interpreting its body yet. Must not retain {@code in}.
   *
   * @throws WireDecodeException if the bytes are not an envelope of this protocol
   */
  Envelope<M> parse(CodedInputStream in) throws WireDecodeException;

  /**
   * Whether no message {@link Envelope#body()} returns shares the frame's bytes (see {@code
   * FrameDecoder.EnvelopeReader#keepsNoShareOfFrames}); false unless the protocol's messages copy
   * every bytes field they keep.
   */
  default boolean keepsNoShareOfFrames() {
    return false;
  }

  /**
   * The envelope of a keep-alive (docs/formats/wire.md "Keep-alive"), written on a connection that
   * sent nothing for {@code transport.keepaliveInterval}; null if the protocol has none (its idle
   * connections are then closed by the receiver's idle timeout and dialed again on the next send).
   */
  default MessageLite encodeKeepalive(int protocolVersion, String clusterId, int senderNodeId) {
    return null;
  }

  /** A parsed envelope: its header, and its body decoded on demand (after the header checks). */
  interface Envelope<M> {
    int protocolVersion();

    /** The cluster id as parsed (protobuf decodes a string field while parsing). */
    String clusterId();

    /** The sender as sent: a uint32, so negative when above 2^31-1 (refused by the transport). */
    int senderNodeId();

    /**
     * Whether this is a keep-alive: a header and no message (then {@link #body()} is not asked).
     */
    default boolean keepalive() {
      return false;
    }

    /**
     * The body as a message.
     *
     * @throws WireDecodeException if the body is absent, unknown or invalid
     */
    M body() throws WireDecodeException;
  }
}
