package io.frsm.client.transport;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.proto.Ping;
import io.frsm.client.proto.Pong;
import io.frsm.client.proto.WatchTopology;
import java.io.IOException;

/**
 * Builds and reads {@code ClientEnvelope}s of one cluster, for one side of the connection: a server
 * reads requests, a client reads responses; anything else is a protocol error. Thread-safe
 * (immutable).
 */
public final class ClientCodec implements FrameDecoder.EnvelopeReader {
  /** Which side of a client connection this codec reads for. */
  public enum Side {
    SERVER,
    CLIENT
  }

  private final EnvelopeHeader header;
  private final Side side;

  /** Fields 1-2 of every envelope this codec writes, serialized once (never written to). */
  private final byte[] headerBytes;

  /** The cluster id as the frames carry it, to compare a received one without decoding it. */
  private final ByteString clusterIdBytes;

  public ClientCodec(String clusterId, Side side) {
    this.header = new EnvelopeHeader(clusterId);
    this.side = side;
    this.headerBytes =
        ClientEnvelope.newBuilder()
            .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
            .setClusterId(header.clusterId())
            .build()
            .toByteArray();
    this.clusterIdBytes = ByteString.copyFromUtf8(header.clusterId());
  }

  /**
   * The request's envelope, written without building protobuf objects ({@link RequestEnvelope}):
   * the bytes of {@link #encodeRequest}'s. What a client sends.
   */
  public MessageLite requestEnvelope(long requestId, OperationRequest request) {
    return new RequestEnvelope(headerBytes, requestId, request);
  }

  /**
   * The response's envelope, written without building protobuf objects ({@link ResponseEnvelope}):
   * the bytes of {@link #encodeResponse}'s. What a node sends.
   */
  public MessageLite responseEnvelope(long requestId, OperationResponse response) {
    return new ResponseEnvelope(headerBytes, requestId, response);
  }

  /**
   * The request's envelope built with the generated classes: the reference {@link #requestEnvelope}
   * is tested against (and what tests forge frames from).
   */
  public ClientEnvelope encodeRequest(long requestId, OperationRequest request) {
    return envelope(requestId).setRequest(ClientMessages.request(request)).build();
  }

  /** The response's envelope built with the generated classes: {@link #responseEnvelope}'s twin. */
  public ClientEnvelope encodeResponse(long requestId, OperationResponse response) {
    return envelope(requestId).setResponse(ClientMessages.response(response)).build();
  }

  public ClientEnvelope encodeWatchTopology(long requestId) {
    return envelope(requestId).setWatchTopology(WatchTopology.getDefaultInstance()).build();
  }

  public ClientEnvelope encodeTopology(long requestId, TopologySnapshot topology) {
    return envelope(requestId).setTopology(TopologyMessages.encode(topology)).build();
  }

  public ClientEnvelope encodeAdminRequest(long requestId, AdminRequest request) {
    return envelope(requestId).setAdminRequest(request).build();
  }

  public ClientEnvelope encodeAdminResponse(long requestId, AdminResponse response) {
    return envelope(requestId).setAdminResponse(response).build();
  }

  /** A keep-alive (docs/formats/wire.md "Keep-alive"). */
  public ClientEnvelope encodePing(long requestId) {
    return envelope(requestId).setPing(Ping.getDefaultInstance()).build();
  }

  /** The answer to the keep-alive {@code requestId}. */
  public ClientEnvelope encodePong(long requestId) {
    return envelope(requestId).setPong(Pong.getDefaultInstance()).build();
  }

  private ClientEnvelope.Builder envelope(long requestId) {
    return ClientEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(header.clusterId())
        .setRequestId(requestId);
  }

  /**
   * True: every frame's record copies the keys, values and tokens it keeps ({@link
   * RequestBodyReader} and {@link ResponseBodyReader} read them as fresh arrays or copy them into a
   * {@code Versioned}, as {@link ClientMessages} and {@link ApiValues} do); topology has no bytes
   * fields; the admin messages, the only protobuf messages a frame keeps, are detached from the
   * frame ({@link #detached}).
   */
  @Override
  public boolean keepsNoShareOfFrames() {
    return true;
  }

  /**
   * Reads a frame. An operation's request (server side) or response (client side) is read field by
   * field into its record ({@link ClientEnvelopeReader}, {@link RequestBodyReader}, {@link
   * ResponseBodyReader}); every other frame is parsed by the generated classes and {@link
   * #decode}d. Either way the frame is accepted, answered or refused as {@link #decode} of the
   * generated parser's envelope would have it (the differential tests hold the direct path to
   * that).
   */
  @Override
  public ClientFrame read(CodedInputStream in) throws WireDecodeException {
    try {
      ClientEnvelopeReader envelope = ClientEnvelopeReader.read(in);
      int operationBody =
          side == Side.SERVER ? RequestEnvelope.BODY_FIELD : ResponseEnvelope.BODY_FIELD;
      if (!envelope.onlyBody(operationBody)) {
        return decode(envelope.toGenerated());
      }
      checkHeader(envelope.protocolVersion(), envelope.clusterId());
      CodedInputStream body = envelope.body().newCodedInput();
      // The body's bytes are a view of the frame (or a copy of them): a value read from it as a
      // view is copied by the record before this returns.
      body.enableAliasing(true);
      return side == Side.SERVER
          ? request(envelope.requestId(), RequestBodyReader.read(body))
          : response(envelope.requestId(), ResponseBodyReader.read(body));
    } catch (InvalidProtocolBufferException e) {
      throw new WireDecodeException("unparsable client envelope: " + e.getMessage(), e);
    } catch (IOException e) {
      throw new WireDecodeException("unreadable client envelope: " + e.getMessage(), e);
    }
  }

  /** {@link EnvelopeHeader#check} on the cluster id's bytes, decoded only to name a wrong one. */
  private void checkHeader(int protocolVersion, ByteString clusterId) throws WireDecodeException {
    if (protocolVersion != header.protocolVersion() || !clusterIdBytes.equals(clusterId)) {
      header.check(protocolVersion, clusterId.toStringUtf8());
    }
  }

  private static ClientFrame request(long requestId, RequestBodyReader body) {
    try {
      return new ClientFrame.Request(requestId, body.request());
    } catch (WireDecodeException | IllegalArgumentException e) {
      // As decode: the frame is sound and names its request; answer it.
      return new ClientFrame.BadRequest(requestId, e.getMessage());
    }
  }

  private static ClientFrame response(long requestId, ResponseBodyReader body)
      throws WireDecodeException {
    try {
      return new ClientFrame.Response(requestId, body.response());
    } catch (IllegalArgumentException e) {
      throw new WireDecodeException("response violates an invariant: " + e.getMessage(), e);
    }
  }

  /**
   * The frame a generated envelope is: the reference the direct {@link #read} is held to, and its
   * path for every frame that is not an operation's request or response.
   */
  public ClientFrame decode(ClientEnvelope envelope) throws WireDecodeException {
    header.check(envelope.getProtocolVersion(), envelope.getClusterId());
    long requestId = envelope.getRequestId();
    switch (side) {
      case SERVER -> {
        if (envelope.hasWatchTopology()) {
          return new ClientFrame.WatchTopology(requestId);
        }
        if (envelope.hasAdminRequest()) {
          return new ClientFrame.AdminCall(
              requestId, detached(envelope.getAdminRequest(), AdminRequest.parser()));
        }
        if (envelope.hasPing()) {
          return new ClientFrame.Ping(requestId);
        }
        if (!envelope.hasRequest()) {
          throw new WireDecodeException("client envelope without a request");
        }
        try {
          return new ClientFrame.Request(requestId, ClientMessages.request(envelope.getRequest()));
        } catch (WireDecodeException | IllegalArgumentException e) {
          // The frame is sound and names its request: answer it rather than drop the connection.
          return new ClientFrame.BadRequest(requestId, e.getMessage());
        }
      }
      case CLIENT -> {
        if (envelope.hasTopology()) {
          return new ClientFrame.TopologyUpdate(
              requestId, TopologyMessages.decode(envelope.getTopology()));
        }
        if (envelope.hasAdminResponse()) {
          return new ClientFrame.AdminAnswer(
              requestId, detached(envelope.getAdminResponse(), AdminResponse.parser()));
        }
        if (envelope.hasPong()) {
          return new ClientFrame.Pong(requestId);
        }
        if (!envelope.hasResponse()) {
          throw new WireDecodeException("client envelope without a response");
        }
        try {
          return new ClientFrame.Response(
              requestId, ClientMessages.response(envelope.getResponse()));
        } catch (IllegalArgumentException e) {
          throw new WireDecodeException("response violates an invariant: " + e.getMessage(), e);
        }
      }
    }
    throw new AssertionError(side);
  }

  /**
   * {@code message} parsed again from its own serialized bytes: admin messages have no bytes
   * fields, but their unknown fields may share the frame's array, which the decoder reuses for the
   * next frame ({@link #keepsNoShareOfFrames}). Admin calls are rare; the copy costs nothing per
   * operation.
   */
  private static <T extends com.google.protobuf.MessageLite> T detached(
      T message, com.google.protobuf.Parser<T> parser) throws WireDecodeException {
    try {
      return parser.parseFrom(message.toByteString());
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new WireDecodeException("admin message does not parse again: " + e.getMessage(), e);
    }
  }
}
