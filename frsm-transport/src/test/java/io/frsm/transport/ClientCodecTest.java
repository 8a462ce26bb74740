package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static io.frsm.transport.WireTesting.body;
import static io.frsm.transport.WireTesting.describe;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.proto.ClientRequest;
import io.frsm.client.proto.ClientResponse;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class ClientCodecTest {
  private final ClientCodec server = new ClientCodec(CLUSTER, ClientCodec.Side.SERVER);
  private final ClientCodec client = new ClientCodec(CLUSTER, ClientCodec.Side.CLIENT);

  @Property(tries = 1000)
  void everyRequest_roundTrips(@ForAll long seed) throws WireDecodeException {
    OperationRequest request = new RandomWire(seed).request();
    ClientFrame frame = server.read(body(client.encodeRequest(seed, request)));
    ClientFrame.Request decoded = assertInstanceOf(ClientFrame.Request.class, frame);
    assertEquals(seed, decoded.requestId());
    assertEquals(describe(request), describe(decoded.request()));
  }

  @Property(tries = 1000)
  void everyResponse_roundTrips(@ForAll long seed) throws WireDecodeException {
    OperationResponse response = new RandomWire(seed).response();
    ClientFrame frame = client.read(body(server.encodeResponse(seed, response)));
    ClientFrame.Response decoded = assertInstanceOf(ClientFrame.Response.class, frame);
    assertEquals(seed, decoded.requestId());
    assertEquals(response, decoded.response());
  }

  private static ClientEnvelope.Builder envelope(long requestId) {
    return ClientEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setRequestId(requestId);
  }

  @Test
  void requestWithEmptyKey_isAnsweredInvalid_notDropped() throws WireDecodeException {
    ClientEnvelope e =
        envelope(42)
            .setRequest(ClientRequest.newBuilder().setGet(ClientRequest.Get.newBuilder()))
            .build();
    ClientFrame.BadRequest bad =
        assertInstanceOf(ClientFrame.BadRequest.class, server.read(body(e)));
    assertEquals(42, bad.requestId());
    assertTrue(bad.reason().contains("key"), bad.reason());
  }

  @Test
  void casWithoutExpectedVersion_isAnsweredInvalid() throws WireDecodeException {
    ClientEnvelope e =
        envelope(43)
            .setRequest(
                ClientRequest.newBuilder()
                    .setCas(ClientRequest.Cas.newBuilder().setKey(ByteString.copyFromUtf8("k"))))
            .build();
    ClientFrame.BadRequest bad =
        assertInstanceOf(ClientFrame.BadRequest.class, server.read(body(e)));
    assertTrue(bad.reason().contains("version"), bad.reason());
  }

  @Test
  void requestWithoutOperation_isAnsweredInvalid() throws WireDecodeException {
    ClientEnvelope e = envelope(44).setRequest(ClientRequest.newBuilder()).build();
    assertInstanceOf(ClientFrame.BadRequest.class, server.read(body(e)));
  }

  @Test
  void invocationTimeAboveSignedRange_isAnsweredInvalid() throws WireDecodeException {
    ClientEnvelope e =
        envelope(45)
            .setRequest(
                ClientRequest.newBuilder()
                    .setInvokedAtMicros(-1)
                    .setFence(
                        ClientRequest.Fence.newBuilder().setKey(ByteString.copyFromUtf8("k"))))
            .build();
    assertInstanceOf(ClientFrame.BadRequest.class, server.read(body(e)));
  }

  @Test
  void responseOnServerSide_isRefused() {
    ClientEnvelope e = server.encodeResponse(1, new OperationResponse.Invalid("x"));
    assertThrows(WireDecodeException.class, () -> server.read(body(e)));
  }

  @Test
  void wrongClusterId_isRefused() {
    ClientEnvelope e =
        new ClientCodec("elsewhere", ClientCodec.Side.CLIENT)
            .encodeRequest(1, new RandomWire(1).request());
    assertThrows(WireDecodeException.class, () -> server.read(body(e)));
  }

  @Test
  void wrongProtocolVersion_isRefused() {
    ClientEnvelope e =
        client.encodeRequest(1, new RandomWire(1).request()).toBuilder()
            .setProtocolVersion(9)
            .build();
    assertThrows(WireDecodeException.class, () -> server.read(body(e)));
  }

  @Test
  void responseWithoutResult_isRefused() {
    ClientEnvelope e = envelope(1).setResponse(ClientResponse.newBuilder()).build();
    assertThrows(WireDecodeException.class, () -> client.read(body(e)));
  }

  @Test
  void redirectWithoutHost_isRefused() {
    ClientEnvelope e =
        envelope(1)
            .setResponse(
                ClientResponse.newBuilder()
                    .setRedirect(ClientResponse.Redirect.newBuilder().setLeaderPort(7000)))
            .build();
    assertThrows(WireDecodeException.class, () -> client.read(body(e)));
  }

  @Test
  void writtenWithoutVersion_isRefused() {
    ClientEnvelope e =
        envelope(1)
            .setResponse(
                ClientResponse.newBuilder().setWritten(ClientResponse.Written.newBuilder()))
            .build();
    assertThrows(WireDecodeException.class, () -> client.read(body(e)));
  }
}
