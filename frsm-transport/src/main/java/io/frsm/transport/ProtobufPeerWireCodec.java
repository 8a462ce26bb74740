package io.frsm.transport;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.WireDecodeException;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * A {@link PeerWireCodec} whose envelope is one generated protobuf class with the header of the
 * wire convention (fields 1–3): parsing and the header are shared here, so a protocol supplies only
 * its envelope's accessors, {@link #encode} and {@link #bodyOf}. frsm's peer protocol and the
 * benchmark's cRSM baseline are both built on it. Thread-safe if the subclass is (stateless ones
 * are).
 *
 * @param <E> the generated envelope class
 * @param <M> the protocol's message type
 */
public abstract class ProtobufPeerWireCodec<E extends MessageLite, M> implements PeerWireCodec<M> {
  private final EnvelopeParser<E> parser;
  private final ToIntFunction<E> protocolVersion;
  private final Function<E, String> clusterId;
  private final ToIntFunction<E> senderNodeId;

  /**
   * @param parser reads the envelope from a frame
   * @param protocolVersion header field 1, e.g. {@code PeerEnvelope::getProtocolVersion}
   * @param clusterId header field 2, e.g. {@code PeerEnvelope::getClusterId} (not the {@code
   *     ...Bytes} getter: that encodes the parsed string again for every frame)
   * @param senderNodeId header field 3, e.g. {@code PeerEnvelope::getSenderNodeId}
   */
  protected ProtobufPeerWireCodec(
      EnvelopeParser<E> parser,
      ToIntFunction<E> protocolVersion,
      Function<E, String> clusterId,
      ToIntFunction<E> senderNodeId) {
    this.parser = parser;
    this.protocolVersion = protocolVersion;
    this.clusterId = clusterId;
    this.senderNodeId = senderNodeId;
  }

  /**
   * The message in a parsed envelope's body; called only after the transport checked the header.
   *
   * @throws WireDecodeException if the body is absent, unknown or invalid
   */
  protected abstract M bodyOf(E envelope) throws WireDecodeException;

  /** Whether a parsed envelope is the protocol's keep-alive; none by default. */
  protected boolean isKeepalive(E envelope) {
    return false;
  }

  @Override
  public final Envelope<M> parse(CodedInputStream in) throws WireDecodeException {
    return new Parsed(parser.parse(in));
  }

  private final class Parsed implements Envelope<M> {
    private final E envelope;

    Parsed(E envelope) {
      this.envelope = envelope;
    }

    @Override
    public int protocolVersion() {
      return protocolVersion.applyAsInt(envelope);
    }

    @Override
    public String clusterId() {
      return clusterId.apply(envelope);
    }

    @Override
    public int senderNodeId() {
      return senderNodeId.applyAsInt(envelope);
    }

    @Override
    public boolean keepalive() {
      return isKeepalive(envelope);
    }

    @Override
    public M body() throws WireDecodeException {
      return bodyOf(envelope);
    }
  }
}
