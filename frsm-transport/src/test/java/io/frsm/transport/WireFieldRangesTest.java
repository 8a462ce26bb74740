package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static io.frsm.transport.WireTesting.body;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.proto.ClientRequest;
import io.frsm.client.proto.Version;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Message;
import io.frsm.transport.proto.AcceptedValue;
import io.frsm.transport.proto.Ballot;
import io.frsm.transport.proto.PeerEnvelope;
import io.frsm.transport.proto.RoundId;
import io.frsm.transport.proto.ValueKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Every number field the protocol computes with, at extreme and random values, through the edge's
 * decoding (docs/formats/wire.md "Validated ranges"): a value within its range decodes unchanged,
 * any other is refused with a reason naming the field (a client request answered InvalidRequest, a
 * peer frame refused), and nothing else ever escapes the decoder.
 */
class WireFieldRangesTest {
  private static final long MAX = InputBounds.MAX_NUMBER;
  private static final ByteString KEY = ByteString.copyFromUtf8("k");

  private final ClientCodec server = new ClientCodec(CLUSTER, ClientCodec.Side.SERVER);
  private final PeerCodec peers = new PeerCodec(CLUSTER);

  /** uint64 bit patterns: a negative long is a value above 2^63-1 on the wire. */
  @Provide
  Arbitrary<Long> extremes() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            Long.MIN_VALUE, -1L, 0L, 1L, MAX - 1, MAX, MAX + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE),
        Arbitraries.longs());
  }

  private static boolean inRange(long v) {
    return v >= 0 && v <= MAX;
  }

  // ---- client requests

  @Property(tries = 1000)
  void casRequest_decodesInRange_orIsAnsweredInvalidNamingTheField(
      @ForAll("extremes") long tau,
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp)
      throws WireDecodeException {
    ClientEnvelope e =
        envelope(
            ClientRequest.newBuilder()
                .setInvokedAtMicros(tau)
                .setCas(
                    ClientRequest.Cas.newBuilder()
                        .setKey(KEY)
                        .setExpected(Version.newBuilder().setEpoch(epoch).setTimestamp(timestamp))
                        .setValue(ByteString.copyFromUtf8("v"))));
    ClientFrame frame = server.read(body(e));
    if (!inRange(tau)) {
      assertRefused(frame, "invoked_at_micros");
    } else if (!inRange(epoch)) {
      assertRefused(frame, "cas.expected: epoch");
    } else if (!inRange(timestamp) || timestamp == MAX) {
      assertRefused(frame, "cas.expected: timestamp");
    } else {
      ClientFrame.Request r = assertInstanceOf(ClientFrame.Request.class, frame);
      assertEquals(tau, r.request().invokedAtMicros());
      ClientOperation.Cas cas =
          assertInstanceOf(ClientOperation.Cas.class, r.request().operation());
      assertEquals(new io.frsm.api.Version(epoch, timestamp), cas.expected());
    }
  }

  @Property(tries = 500)
  void deleteRequest_decodesInRange_orIsAnsweredInvalidNamingTheField(
      @ForAll("extremes") long epoch, @ForAll("extremes") long timestamp)
      throws WireDecodeException {
    ClientEnvelope e =
        envelope(
            ClientRequest.newBuilder()
                .setDelete(
                    ClientRequest.Delete.newBuilder()
                        .setKey(KEY)
                        .setExpected(
                            Version.newBuilder().setEpoch(epoch).setTimestamp(timestamp))));
    ClientFrame frame = server.read(body(e));
    if (!inRange(epoch)) {
      assertRefused(frame, "delete.expected: epoch");
    } else if (!inRange(timestamp) || timestamp == MAX) {
      assertRefused(frame, "delete.expected: timestamp");
    } else {
      assertInstanceOf(ClientFrame.Request.class, frame);
    }
  }

  /** An idempotency token is absent or exactly 16 bytes; a resend flag needs one. */
  @Property(tries = 200)
  void casIdempotencyToken_isSixteenBytesOrAbsent_elseAnsweredInvalid(
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 40) int length,
      @ForAll boolean resend)
      throws WireDecodeException {
    ClientEnvelope e =
        envelope(
            ClientRequest.newBuilder()
                .setCas(
                    ClientRequest.Cas.newBuilder()
                        .setKey(KEY)
                        .setExpected(Version.newBuilder().setEpoch(1).setTimestamp(1))
                        .setValue(ByteString.copyFromUtf8("v"))
                        .setIdempotencyToken(ByteString.copyFrom(new byte[length]))
                        .setResend(resend)));
    ClientFrame frame = server.read(body(e));
    if (length == 0 && resend) {
      assertRefused(frame, "cas: resend without an idempotency token");
    } else if (length != 0 && length != 16) {
      assertRefused(frame, "cas: idempotency token");
    } else {
      ClientFrame.Request r = assertInstanceOf(ClientFrame.Request.class, frame);
      ClientOperation.Cas cas =
          assertInstanceOf(ClientOperation.Cas.class, r.request().operation());
      assertEquals(length == 0, cas.hint() == null);
      if (cas.hint() != null) {
        assertEquals(resend, cas.hint().resend());
      }
    }
  }

  private static ClientEnvelope envelope(ClientRequest.Builder request) {
    return ClientEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setRequestId(7)
        .setRequest(request)
        .build();
  }

  private static void assertRefused(ClientFrame frame, String field) {
    ClientFrame.BadRequest bad = assertInstanceOf(ClientFrame.BadRequest.class, frame);
    assertEquals(7, bad.requestId());
    assertTrue(bad.reason().contains(field), "'" + bad.reason() + "' names " + field);
  }

  // ---- peer messages

  @Property(tries = 1000)
  void accept_decodesInRange_orIsRefusedNamingTheField(
      @ForAll("extremes") long round,
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp,
      @ForAll("extremes") long term) {
    PeerEnvelope e =
        peer()
            .setAccept(
                io.frsm.transport.proto.Accept.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1).setSequence(round))
                    .setProposal(value(epoch, timestamp, round))
                    .setTerm(term))
            .build();
    String refusal = null;
    if (!inRange(epoch)) {
      refusal = "epoch";
    } else if (!inRange(timestamp)) {
      refusal = "timestamp";
    } else if (!inRange(round) || round == 0) {
      refusal = "accept.proposal.accepted";
    } else if (!inRange(term)) {
      refusal = "term";
    }
    check(e, refusal);
  }

  /**
   * The accepted part's ballot: a node id or boot above the signed range (negative in Java), a ⊥
   * round with a node, or no ballot at all is refused naming the field, as before the decoder's
   * fast path for valid ballots; a valid one round-trips.
   */
  @Property(tries = 500)
  void acceptedBallot_nodeAndBootInRange_elseRefusedNamingTheField(
      @ForAll("extremes") long round, @ForAll int nodeId, @ForAll int boot) {
    Ballot ballot = Ballot.newBuilder().setRound(round).setNodeId(nodeId).setBoot(boot).build();
    PeerEnvelope e =
        peer()
            .setAccept(
                io.frsm.transport.proto.Accept.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1).setSequence(3))
                    .setProposal(value(1, 2, 3).toBuilder().setAccepted(ballot)))
            .build();
    boolean valid = round > 0 && inRange(round) && nodeId >= 0 && boot >= 0;
    check(e, valid ? null : "accept.proposal.accepted");
    PeerEnvelope none =
        peer()
            .setAccept(
                io.frsm.transport.proto.Accept.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1).setSequence(3))
                    .setProposal(value(1, 2, 3).toBuilder().clearAccepted()))
            .build();
    check(none, "accept.proposal.accepted");
  }

  /** An accepted value's token is absent or exactly 16 bytes, and round-trips. */
  @Property(tries = 200)
  void acceptedToken_isSixteenBytesOrAbsent_elseRefused(
      @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 40) int length) {
    PeerEnvelope e =
        peer()
            .setAccept(
                io.frsm.transport.proto.Accept.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1).setSequence(3))
                    .setProposal(
                        value(1, 2, 3).toBuilder().setToken(ByteString.copyFrom(new byte[length]))))
            .build();
    check(e, length == 0 || length == 16 ? null : "idempotency token");
  }

  @Property(tries = 500)
  void prepare_decodesInRange_orIsRefusedNamingTheField(
      @ForAll("extremes") long round, @ForAll("extremes") long term) {
    PeerEnvelope e =
        peer()
            .setPrepare(
                io.frsm.transport.proto.Prepare.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1))
                    .setBallot(ballot(round))
                    .setTerm(term))
            .build();
    String refusal = null;
    if (!inRange(round) || round == 0) {
      refusal = "prepare.ballot";
    } else if (!inRange(term)) {
      refusal = "term";
    }
    check(e, refusal);
  }

  @Property(tries = 500)
  void purge_decodesInRange_orIsRefusedNamingTheField(
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp,
      @ForAll("extremes") long markTimeMs) {
    PeerEnvelope e =
        peer()
            .setPurge(
                io.frsm.transport.proto.Purge.newBuilder()
                    .setKey(KEY)
                    .setEpoch(epoch)
                    .setTimestamp(timestamp)
                    .setMarkTimeMs(markTimeMs))
            .build();
    String refusal = null;
    if (!inRange(epoch)) {
      refusal = "epoch";
    } else if (!inRange(timestamp)) {
      refusal = "timestamp";
    } else if (!inRange(markTimeMs)) {
      refusal = "mark_time_ms";
    }
    check(e, refusal);
  }

  @Property(tries = 500)
  void terms_decodeInRange_orAreRefusedNamingTheField(@ForAll("extremes") long term) {
    PeerEnvelope stale =
        peer()
            .setStaleTerm(
                io.frsm.transport.proto.StaleTerm.newBuilder()
                    .setKey(KEY)
                    .setRound(RoundId.newBuilder().setNodeId(1))
                    .setTerm(term))
            .build();
    check(stale, inRange(term) ? null : "stale_term: term");
  }

  /** Decoded when {@code refusal} is null, else refused with a reason containing it. */
  private void check(PeerEnvelope e, String refusal) {
    if (refusal == null) {
      try {
        Message m = peers.read(body(e)).message();
        assertEquals(m, peers.read(body(peers.encode(1, m))).message(), "round-trips");
      } catch (WireDecodeException unexpected) {
        throw new AssertionError("refused a frame within range: " + unexpected.getMessage());
      }
    } else {
      WireDecodeException refused =
          assertThrows(WireDecodeException.class, () -> peers.read(body(e)));
      assertTrue(
          refused.getMessage().contains(refusal),
          "'" + refused.getMessage() + "' names " + refusal);
    }
  }

  private static PeerEnvelope.Builder peer() {
    return PeerEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setSenderNodeId(1);
  }

  /** Round 0 with a node id is a malformed ⊥: refused like an out-of-range round. */
  private static Ballot ballot(long round) {
    return Ballot.newBuilder().setRound(round).setNodeId(2).setBoot(1).build();
  }

  private static AcceptedValue value(long epoch, long timestamp, long round) {
    return AcceptedValue.newBuilder()
        .setEpoch(epoch)
        .setTimestamp(timestamp)
        .setAccepted(ballot(round))
        .setKind(ValueKind.VALUE_KIND_LIVE)
        .setValue(ByteString.copyFromUtf8("v"))
        .build();
  }
}
