package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RoundId;
import io.frsm.consensus.core.TermRecord;
import io.frsm.transport.proto.PeerEnvelope;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Random;
import java.util.function.UnaryOperator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The node's peer envelope reader ({@link PeerEnvelopeReader}, {@link PeerBodyReader}) accepts
 * exactly the frames the generated parser with {@link PeerMessages} accepted, decoding each to the
 * same message: on valid frames of every kind, on frames mutated at random (bytes flipped,
 * truncated, inserted, fields repeated or appended), on random bytes, and on hand-made corner cases
 * of protobuf's encoding. Hostile input handling must not change with the reader.
 */
class PeerEnvelopeReaderTest {
  /** The reader before: the generated PeerEnvelope and PeerMessages.fromEnvelope. */
  private static final class GeneratedPeerWireCodec
      extends ProtobufPeerWireCodec<PeerEnvelope, Message> {
    GeneratedPeerWireCodec() {
      super(
          new EnvelopeParser<>("peer", PeerEnvelope::parseFrom),
          PeerEnvelope::getProtocolVersion,
          PeerEnvelope::getClusterId,
          PeerEnvelope::getSenderNodeId);
    }

    @Override
    public String protocolName() {
      return "frsm peer (generated)";
    }

    @Override
    public int protocolVersion() {
      return WireFormat.PROTOCOL_VERSION;
    }

    @Override
    public PeerEnvelope encode(int version, String clusterId, int sender, Message message) {
      return FrsmPeerWireCodec.INSTANCE.encode(version, clusterId, sender, message);
    }

    @Override
    protected boolean isKeepalive(PeerEnvelope envelope) {
      return envelope.hasKeepalive();
    }

    @Override
    protected Message bodyOf(PeerEnvelope envelope) throws WireDecodeException {
      return PeerMessages.fromEnvelope(envelope);
    }
  }

  private static final PeerFraming<Message> BEFORE =
      new PeerFraming<>(CLUSTER, new GeneratedPeerWireCodec());
  private static final PeerFraming<Message> NOW =
      new PeerFraming<>(CLUSTER, FrsmPeerWireCodec.INSTANCE);

  @Property(tries = 3000)
  void validAndMutatedFrames_sameOutcome(@ForAll long seed) {
    RandomWire wire = new RandomWire(seed);
    Random random = new Random(seed);
    byte[] valid = envelope(wire.message(), wire.nonNegativeInt());
    assertSameOutcome(valid);
    assertSameOutcome(mutate(valid, random, wire));
    assertSameOutcome(mutate(mutate(valid, random, wire), random, wire));
  }

  @Property(tries = 2000)
  void randomBytes_sameOutcome(@ForAll long seed) {
    Random random = new Random(seed);
    byte[] bytes = new byte[random.nextInt(64)];
    random.nextBytes(bytes);
    assertSameOutcome(bytes);
    // A valid header before them, so the bytes reach the body.
    assertSameOutcome(concat(header(1), bytes));
  }

  @Test
  void keepalive_sameOutcome() {
    byte[] keepalive = FrsmPeerWireCodec.INSTANCE.encodeKeepalive(1, CLUSTER, 4).toByteArray();
    assertSameOutcome(keepalive);
    assertSameOutcome(concat(keepalive, field(10, new byte[] {10, 1, 7, 18, 0, 26, 2, 8, 1})));
    assertSameOutcome(concat(keepalive, new byte[] {(byte) 0xCA, 1, 2, 8, 1})); // unknown inside
    assertSameOutcome(concat(header(4), field(25, new byte[] {8, 1})));
    assertSameOutcome(concat(header(4), field(25, new byte[] {12}))); // end group inside
  }

  @Test
  void cornerCasesOfTheEncoding_sameOutcome() {
    byte[] prepare = envelope(new RandomWire(1).message(), 2);
    // A top-level end-group tag: protobuf's parseFrom(CodedInputStream) stops there.
    assertSameOutcome(concat(prepare, new byte[] {(byte) 0xA4, 0x06, (byte) 0xFF, (byte) 0xFF}));
    assertSameOutcome(concat(header(2), new byte[] {12}));
    // Unknown groups, nested, and nested past protobuf's recursion limit.
    assertSameOutcome(concat(prepare, nestedGroups(5)));
    assertSameOutcome(concat(prepare, nestedGroups(150)));
    assertSameOutcome(concat(header(2), nestedGroups(5000)));
    // Header fields repeated (the last wins), with other wire types, a cluster id not UTF-8.
    assertSameOutcome(concat(header(9), prepare));
    assertSameOutcome(concat(prepare, new byte[] {8, 2}));
    assertSameOutcome(concat(prepare, new byte[] {10, 0}));
    assertSameOutcome(concat(prepare, new byte[] {24, (byte) 0xFF, (byte) 0xFF, 0x7F}));
    assertSameOutcome(concat(prepare, new byte[] {18, 2, (byte) 0xC3, 0x28}));
    assertSameOutcome(new byte[] {8, 1, 18, 2, (byte) 0xC3, 0x28, 24, 1});
    // A body field as a varint (skipped), an empty body of every kind, a body field with a length
    // beyond the frame or negative.
    assertSameOutcome(concat(header(2), new byte[] {(byte) 0x80, 1, 5}));
    for (int f = 10; f <= 26; f++) {
      assertSameOutcome(concat(header(2), field(f, new byte[0])));
    }
    assertSameOutcome(concat(header(2), new byte[] {(byte) 0x82, 1, 100, 10, 1, 7}));
    assertSameOutcome(
        concat(
            header(2), new byte[] {(byte) 0x82, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, -1, 15}));
    // Oneof switches: the last case wins, merged with its own earlier occurrences.
    Message a = new RandomWire(11).message();
    Message b = new RandomWire(12).message();
    byte[] bodyA = bodyOf(a);
    byte[] bodyB = bodyOf(b);
    int fieldA = PeerBodyWriter.fieldNumber(a);
    int fieldB = PeerBodyWriter.fieldNumber(b);
    assertSameOutcome(concat(header(3), field(fieldA, bodyA), field(fieldB, bodyB)));
    assertSameOutcome(
        concat(header(3), field(fieldA, bodyA), field(fieldB, bodyB), field(fieldA, bodyA)));
    assertSameOutcome(
        concat(
            header(3),
            field(fieldA, Arrays.copyOf(bodyA, bodyA.length - 1)),
            field(fieldB, bodyB)));
    assertSameOutcome(
        concat(
            header(3),
            field(fieldA, new byte[] {32, (byte) 0x80}), // a varint cut at the field's end
            field(fieldA, new byte[] {1})));
    assertSameOutcome(concat(header(3), field(fieldA, bodyA), field(fieldA, bodyA)));
  }

  @Test
  void unknownGroupsAtEveryMessageDepth_sameOutcomeAtAndPastTheLimit() {
    Key key = Key.of(new byte[] {7});
    RoundId round = new RoundId(1, 2, 3);
    Ballot ballot = new Ballot(4, 1, 2);
    Message prepare = new Message.Prepare(key, round, ballot, 5, 6);
    AcceptedValue proposal = AcceptedValue.live(1, 2, ballot, new byte[] {9}, false);
    Message accept = new Message.Accept(key, round, proposal, 5, 6);
    Message persisted = new Message.TermPersisted(key, round, 5, new TermRecord(4, 1, 2, 3));
    // The groups go in an extra occurrence of a message field, which protobuf merges into the
    // one before: the frame stays valid, so only the nesting decides whether it is refused.
    assertAll(
        () -> assertLimitHeld("envelope", 0, groups -> concat(envelope(prepare, 2), groups)),
        () -> assertLimitHeld("prepare", 1, groups -> withBodyTail(prepare, groups)),
        () -> assertLimitHeld("keepalive", 1, groups -> concat(header(4), field(25, groups))),
        () ->
            assertLimitHeld("prepare.round", 2, groups -> withBodyTail(prepare, field(2, groups))),
        () ->
            assertLimitHeld("prepare.ballot", 2, groups -> withBodyTail(prepare, field(3, groups))),
        () ->
            assertLimitHeld("accept.proposal", 2, groups -> withBodyTail(accept, field(3, groups))),
        () ->
            assertLimitHeld(
                "term_persisted.previous", 2, groups -> withBodyTail(persisted, field(4, groups))),
        () ->
            assertLimitHeld(
                "accept.proposal.accepted",
                3,
                groups -> withBodyTail(accept, field(3, field(3, groups)))));
  }

  /**
   * The generated parser allows unknown groups nested {@code 100 - depth} deep inside a message
   * {@code depth} levels below the envelope (protobuf's recursion limit counts the enclosing
   * messages) and refuses one more; the direct reader must agree on both sides of that line.
   */
  private static void assertLimitHeld(String where, int depth, UnaryOperator<byte[]> frame) {
    int allowed = 100 - depth;
    for (int groups = allowed - 1; groups <= allowed + 1; groups++) {
      byte[] bytes = frame.apply(nestedGroups(groups));
      Object before = outcome(BEFORE, CodedInputStream.newInstance(bytes));
      boolean refused = "refused".equals(before);
      assertEquals(groups > allowed, refused, where + ": generated parser with " + groups);
      int n = groups;
      assertEquals(
          before,
          outcome(NOW, CodedInputStream.newInstance(bytes)),
          () -> where + " (depth " + depth + ") with " + n + " nested groups");
    }
  }

  /** An envelope whose body is {@code m}'s, followed by {@code tail} inside the body. */
  private static byte[] withBodyTail(Message m, byte[] tail) {
    return concat(header(2), field(PeerBodyWriter.fieldNumber(m), concat(bodyOf(m), tail)));
  }

  // ---- the comparison

  private static void assertSameOutcome(byte[] frame) {
    Object before = outcome(BEFORE, CodedInputStream.newInstance(frame));
    // The node reads frames as views of an array it reuses (FrameDecoder), aliasing on.
    CodedInputStream aliased = UnsafeByteOperations.unsafeWrap(frame).newCodedInput();
    aliased.enableAliasing(true);
    assertEquals(before, outcome(NOW, aliased), () -> "frame " + hex(frame));
    assertEquals(
        before, outcome(NOW, CodedInputStream.newInstance(frame)), () -> "frame " + hex(frame));
  }

  /** The frame's sender, keep-alive flag and message (records: equal by content), or "refused". */
  private static Object outcome(PeerFraming<Message> framing, CodedInputStream in) {
    try {
      SenderFrame<Message> frame = framing.read(in);
      return Arrays.asList(frame.senderNodeId(), frame.isKeepalive(), frame.message());
    } catch (WireDecodeException e) {
      return "refused";
    }
  }

  // ---- frames

  private static byte[] envelope(Message m, int sender) {
    return FrsmPeerWireCodec.INSTANCE
        .encode(WireFormat.PROTOCOL_VERSION, CLUSTER, sender, m)
        .toByteArray();
  }

  private static byte[] bodyOf(Message m) {
    byte[] all = envelope(m, 0);
    byte[] header = header(0);
    CodedInputStream in =
        CodedInputStream.newInstance(all, header.length, all.length - header.length);
    try {
      in.readTag();
      return in.readByteArray();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] header(int sender) {
    return PeerEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setSenderNodeId(sender)
        .build()
        .toByteArray();
  }

  private static byte[] field(int number, byte[] content) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      out.writeByteArray(number, content);
      out.flush();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    return bytes.toByteArray();
  }

  /** {@code depth} unknown groups (field 99) inside each other, closed properly. */
  private static byte[] nestedGroups(int depth) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] start = {(byte) 0x9B, 0x06}; // field 99, start group
    byte[] end = {(byte) 0x9C, 0x06}; // field 99, end group
    for (int i = 0; i < depth; i++) {
      bytes.writeBytes(start);
    }
    for (int i = 0; i < depth; i++) {
      bytes.writeBytes(end);
    }
    return bytes.toByteArray();
  }

  private static byte[] mutate(byte[] frame, Random random, RandomWire wire) {
    if (frame.length == 0) {
      return new byte[] {(byte) random.nextInt()};
    }
    int at = random.nextInt(frame.length);
    return switch (random.nextInt(8)) {
      case 0 -> { // flip one byte
        byte[] m = frame.clone();
        m[at] ^= (byte) (1 + random.nextInt(255));
        yield m;
      }
      case 1 -> Arrays.copyOf(frame, at); // truncate
      case 2 -> { // insert random bytes
        byte[] extra = new byte[1 + random.nextInt(4)];
        random.nextBytes(extra);
        yield concat(Arrays.copyOf(frame, at), extra, Arrays.copyOfRange(frame, at, frame.length));
      }
      case 3 -> concat(frame, Arrays.copyOfRange(frame, at, frame.length)); // repeat a tail
      case 4 -> { // another message's body field appended
        Message other = wire.message();
        yield concat(frame, field(PeerBodyWriter.fieldNumber(other), bodyOf(other)));
      }
      case 5 -> { // an unknown field appended, of a random wire type
        int wireType = random.nextInt(6);
        byte[] tag = {(byte) ((7 << 3) | wireType), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        yield concat(frame, Arrays.copyOf(tag, 1 + random.nextInt(10)));
      }
      case 6 -> { // set one byte to a value that often is a tag or a length
        byte[] m = frame.clone();
        m[at] = (byte) new int[] {0, 1, 2, 3, 4, 8, 10, 12, 0x7F, 0x80, 0xFF}[random.nextInt(11)];
        yield m;
      }
      default -> { // drop one byte
        yield concat(Arrays.copyOf(frame, at), Arrays.copyOfRange(frame, at + 1, frame.length));
      }
    };
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      bytes.writeBytes(p);
    }
    return bytes.toByteArray();
  }

  private static String hex(byte[] bytes) {
    return ByteString.copyFrom(bytes).toString()
        + " "
        + java.util.HexFormat.of().formatHex(bytes, 0, Math.min(bytes.length, 200));
  }
}
