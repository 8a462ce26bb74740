package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static io.frsm.transport.WireTesting.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.frsm.cell.Key;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RoundId;
import io.frsm.transport.proto.AcceptedValue;
import io.frsm.transport.proto.Ballot;
import io.frsm.transport.proto.PeerEnvelope;
import io.frsm.transport.proto.Prepare;
import io.frsm.transport.proto.ValueKind;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class PeerCodecTest {
  private final PeerCodec codec = new PeerCodec(CLUSTER);

  @Property(tries = 2000)
  void everyMessage_roundTrips(@ForAll long seed) throws WireDecodeException {
    RandomWire random = new RandomWire(seed);
    Message message = random.message();
    int sender = random.nonNegativeInt();
    SenderFrame<Message> decoded = codec.read(body(codec.encode(sender, message)));
    assertEquals(sender, decoded.senderNodeId());
    assertEquals(message, decoded.message());
  }

  @Test
  void everyMessageType_hasAWireMapping() throws WireDecodeException {
    // Walks the sealed hierarchy, so a message type added to the core fails here until it is
    // mapped; the random generator must then learn it too (checked by the count).
    List<Class<?>> types = new ArrayList<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(Message.class));
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (c.isSealed()) {
        todo.addAll(List.of(c.getPermittedSubclasses()));
      } else {
        types.add(c);
      }
    }
    List<Class<?>> generated = new ArrayList<>();
    for (long seed = 0; seed < 500; seed++) {
      Message m = new RandomWire(seed).message();
      assertEquals(m, codec.read(body(codec.encode(1, m))).message());
      if (!generated.contains(m.getClass())) {
        generated.add(m.getClass());
      }
    }
    assertEquals(types.size(), generated.size(), "generated " + generated + " of " + types);
  }

  // ---- header checks

  @Test
  void wrongClusterId_isRefused() {
    PeerEnvelope envelope = new PeerCodec("other-cluster").encode(1, new RandomWire(1).message());
    WireDecodeException e =
        assertThrows(WireDecodeException.class, () -> codec.read(body(envelope)));
    assertTrue(e.getMessage().contains("other-cluster"), e.getMessage());
  }

  @Test
  void wrongProtocolVersion_isRefused() {
    PeerEnvelope envelope =
        codec.encode(1, new RandomWire(1).message()).toBuilder().setProtocolVersion(2).build();
    WireDecodeException e =
        assertThrows(WireDecodeException.class, () -> codec.read(body(envelope)));
    assertTrue(e.getMessage().contains("protocol version 2"), e.getMessage());
  }

  @Test
  void missingProtocolVersion_isRefused() {
    PeerEnvelope envelope =
        codec.encode(1, new RandomWire(1).message()).toBuilder().clearProtocolVersion().build();
    assertThrows(WireDecodeException.class, () -> codec.read(body(envelope)));
  }

  @Test
  void envelopeWithoutBody_isRefused() {
    PeerEnvelope envelope =
        codec.encode(1, new RandomWire(1).message()).toBuilder().clearBody().build();
    assertThrows(WireDecodeException.class, () -> codec.read(body(envelope)));
  }

  @Test
  void clientEnvelope_onPeerPort_isRefused() {
    var client =
        new ClientCodec(CLUSTER, ClientCodec.Side.CLIENT)
            .encodeRequest(7, new RandomWire(3).request());
    assertThrows(WireDecodeException.class, () -> codec.read(body(client)));
  }

  @Test
  void garbage_isRefused() {
    byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 0x01};
    assertThrows(
        WireDecodeException.class,
        () -> codec.read(com.google.protobuf.CodedInputStream.newInstance(garbage)));
  }

  // ---- body checks: each becomes a typed decode error, never an exception from the core

  private PeerEnvelope.Builder envelope() {
    return PeerEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setSenderNodeId(1);
  }

  private static final ByteString KEY = ByteString.copyFromUtf8("k");
  private static final io.frsm.transport.proto.RoundId ROUND =
      io.frsm.transport.proto.RoundId.newBuilder().setNodeId(1).setSequence(3).build();
  private static final Ballot BALLOT =
      Ballot.newBuilder().setRound(5).setNodeId(1).setBoot(1).build();

  private static AcceptedValue.Builder value() {
    return AcceptedValue.newBuilder()
        .setEpoch(4)
        .setTimestamp(2)
        .setAccepted(BALLOT)
        .setKind(ValueKind.VALUE_KIND_LIVE)
        .setValue(ByteString.copyFromUtf8("v"));
  }

  private String refusal(PeerEnvelope.Builder envelope) {
    return assertThrows(WireDecodeException.class, () -> codec.read(body(envelope.build())))
        .getMessage();
  }

  @Test
  void prepare_withAllFields_decodes() throws WireDecodeException {
    Message m =
        codec
            .read(
                body(
                    envelope()
                        .setPrepare(
                            Prepare.newBuilder().setKey(KEY).setRound(ROUND).setBallot(BALLOT))
                        .build()))
            .message();
    assertEquals(
        new Message.Prepare(
            Key.of(new byte[] {'k'}), new RoundId(1, 0, 3), new io.frsm.cell.Ballot(5, 1, 1)),
        m);
  }

  @Test
  void emptyKey_isRefused() {
    assertTrue(
        refusal(envelope().setPrepare(Prepare.newBuilder().setRound(ROUND).setBallot(BALLOT)))
            .contains("key"));
  }

  @Test
  void missingRoundId_isRefused() {
    assertTrue(
        refusal(envelope().setPrepare(Prepare.newBuilder().setKey(KEY).setBallot(BALLOT)))
            .contains("round id"));
  }

  @Test
  void prepareWithoutBallot_isRefused() {
    assertTrue(
        refusal(envelope().setPrepare(Prepare.newBuilder().setKey(KEY).setRound(ROUND)))
            .contains("ballot"));
  }

  @Test
  void ballotAboveSignedRange_isRefused() {
    Ballot huge = BALLOT.toBuilder().setRound(-1L).build(); // 2^64-1 on the wire
    assertTrue(
        refusal(
                envelope()
                    .setPrepare(Prepare.newBuilder().setKey(KEY).setRound(ROUND).setBallot(huge)))
            .contains("out of range"));
  }

  @Test
  void noneBallotWithNodeId_isRefused() {
    Ballot bad = Ballot.newBuilder().setNodeId(3).build();
    assertFalse(
        refusal(
                envelope()
                    .setPrepare(Prepare.newBuilder().setKey(KEY).setRound(ROUND).setBallot(bad)))
            .isEmpty());
  }

  @Test
  void valueWithoutKind_isRefused() {
    var accept =
        io.frsm.transport.proto.Accept.newBuilder()
            .setKey(KEY)
            .setRound(ROUND)
            .setProposal(value().clearKind());
    assertTrue(refusal(envelope().setAccept(accept)).contains("kind"));
  }

  @Test
  void unknownKindNumber_isRefused() {
    var accept =
        io.frsm.transport.proto.Accept.newBuilder()
            .setKey(KEY)
            .setRound(ROUND)
            .setProposal(value().setKindValue(9));
    assertTrue(refusal(envelope().setAccept(accept)).contains("kind"));
  }

  @Test
  void deleteWithValueBytes_isRefused() {
    var accept =
        io.frsm.transport.proto.Accept.newBuilder()
            .setKey(KEY)
            .setRound(ROUND)
            .setProposal(value().setKind(ValueKind.VALUE_KIND_DELETE_FOR_CELL));
    assertTrue(refusal(envelope().setAccept(accept)).contains("delete"));
  }

  @Test
  void valueWithoutAcceptedBallot_isRefused() {
    var accept =
        io.frsm.transport.proto.Accept.newBuilder()
            .setKey(KEY)
            .setRound(ROUND)
            .setProposal(value().clearAccepted());
    assertTrue(refusal(envelope().setAccept(accept)).contains("ballot"));
  }

  @Test
  void acceptMarkedChosen_isRefused() {
    var accept =
        io.frsm.transport.proto.Accept.newBuilder()
            .setKey(KEY)
            .setRound(ROUND)
            .setProposal(value().setChosen(true));
    assertTrue(refusal(envelope().setAccept(accept)).contains("chosen"));
  }

  @Test
  void acceptWithoutProposal_isRefused() {
    var accept = io.frsm.transport.proto.Accept.newBuilder().setKey(KEY).setRound(ROUND);
    assertTrue(refusal(envelope().setAccept(accept)).contains("proposal"));
  }

  @Test
  void commitNotMarkedChosen_isRefused() {
    var commit = io.frsm.transport.proto.Commit.newBuilder().setKey(KEY).setChosen(value());
    assertTrue(refusal(envelope().setCommit(commit)).contains("chosen"));
  }

  @Test
  void epochAboveSignedRange_isRefused() {
    var commit =
        io.frsm.transport.proto.Commit.newBuilder()
            .setKey(KEY)
            .setChosen(value().setChosen(true).setEpoch(Long.MIN_VALUE));
    assertTrue(refusal(envelope().setCommit(commit)).contains("epoch"));
  }

  @Test
  void senderAboveSignedRange_isRefused() {
    PeerEnvelope.Builder e =
        envelope()
            .setSenderNodeId(-5)
            .setPrepare(Prepare.newBuilder().setKey(KEY).setRound(ROUND).setBallot(BALLOT));
    assertTrue(refusal(e).contains("sender"));
  }
}
