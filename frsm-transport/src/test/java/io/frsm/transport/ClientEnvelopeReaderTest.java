package io.frsm.transport;

import static io.frsm.transport.WireTesting.CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.UnsafeByteOperations;
import io.frsm.api.Version;
import io.frsm.client.proto.AdminRequest;
import io.frsm.client.proto.AdminResponse;
import io.frsm.client.proto.ClientEnvelope;
import io.frsm.client.transport.ClientCodec;
import io.frsm.client.transport.ClientFrame;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.EnvelopeParser;
import io.frsm.client.transport.OperationRequest;
import io.frsm.client.transport.OperationResponse;
import io.frsm.client.transport.TopologySnapshot;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientCodec#read}, which reads an operation's request or response field by field, accepts
 * exactly the frames the generated parser with {@link ClientCodec#decode} (and so {@code
 * ClientMessages}) accepted, decoding each to the same record — the same request, the same answer
 * to a bad one, the same response — and refuses the same frames: on valid frames of every kind for
 * both sides, on frames mutated at random (bytes flipped, set, dropped, inserted, truncated, fields
 * repeated or appended, unknown fields of every wire type), on random bytes, and on hand-made
 * corner cases of protobuf's encoding. Nothing a decoded record keeps shares the frame's array.
 */
class ClientEnvelopeReaderTest {
  private static final EnvelopeParser<ClientEnvelope> GENERATED =
      new EnvelopeParser<>("client", ClientEnvelope::parseFrom);
  private static final ClientCodec SERVER = new ClientCodec(CLUSTER, ClientCodec.Side.SERVER);
  private static final ClientCodec CLIENT = new ClientCodec(CLUSTER, ClientCodec.Side.CLIENT);
  private static final long MAX = WireFormat.MAX_NUMBER;

  @Property(tries = 3000)
  void validAndMutatedFrames_sameOutcome(@ForAll long seed) {
    RandomWire wire = new RandomWire(seed);
    Random random = new Random(seed);
    byte[] valid = anyFrame(wire, random);
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
    // A valid header before them, so the bytes reach the body; and inside a body field.
    assertSameOutcome(concat(header(1), bytes));
    assertSameOutcome(concat(header(1), field(30, bytes)));
    assertSameOutcome(concat(header(1), field(31, bytes)));
    assertSameOutcome(concat(header(1), field(30, concat(new byte[] {0x62, 0}, bytes))));
  }

  @Test
  void everyEdgeRequestAndResponse_sameOutcome() {
    for (OperationRequest r : DirectClientEnvelopeTest.edgeRequests()) {
      assertSameOutcome(CLIENT.encodeRequest(3, r).toByteArray());
    }
    for (OperationResponse r : DirectClientEnvelopeTest.edgeResponses()) {
      assertSameOutcome(SERVER.encodeResponse(3, r).toByteArray());
    }
  }

  @Test
  void badRequestsAndResponses_sameOutcome() {
    // Operations with a part missing or out of range: answered as a bad request, never dropped.
    byte[] key = field(1, new byte[] {7});
    byte[] version = field(2, concat(varint(1, 5), varint(2, 6)));
    byte[] token = field(4, new byte[16]);
    List<byte[]> requests = new ArrayList<>();
    requests.add(new byte[0]); // no operation
    requests.add(field(10, new byte[0])); // get without a key
    requests.add(field(12, key)); // cas without expected
    requests.add(field(12, concat(key, field(2, varint(2, MAX))))); // write lands past the max
    requests.add(field(12, concat(key, field(2, varint(2, MAX - 1)))));
    requests.add(field(12, concat(key, field(2, varint(1, MAX + 1)))));
    requests.add(field(12, concat(key, field(2, varint(1, -1)))));
    requests.add(field(12, concat(key, version, token)));
    requests.add(field(12, concat(key, version, field(4, new byte[15]))));
    requests.add(field(12, concat(key, version, field(4, new byte[17]))));
    requests.add(field(12, concat(key, version, varint(5, 1)))); // resend without a token
    requests.add(field(12, concat(key, version, token, varint(5, 1))));
    requests.add(field(11, concat(key, varint(4, 1))));
    requests.add(field(11, concat(key, field(3, new byte[16]), varint(4, 2))));
    requests.add(field(13, concat(key, version, field(3, new byte[3]))));
    requests.add(field(13, key));
    requests.add(field(14, new byte[0]));
    requests.add(concat(varint(1, -1), field(14, key))); // τ above the signed range
    requests.add(concat(varint(1, MAX + 1), field(14, key)));
    requests.add(concat(varint(1, MAX), field(14, key)));
    for (byte[] request : requests) {
      assertSameOutcome(concat(header(9), field(30, request)));
    }
    List<byte[]> responses = new ArrayList<>();
    responses.add(new byte[0]); // no result
    responses.add(field(10, new byte[0])); // an absent value
    responses.add(field(10, field(1, new byte[0]))); // a value without a version
    responses.add(field(10, field(1, field(2, varint(1, MAX + 1)))));
    responses.add(field(10, field(1, concat(field(1, new byte[] {1, 2}), field(2, new byte[0])))));
    responses.add(field(11, new byte[0]));
    responses.add(field(12, field(1, varint(2, -1))));
    responses.add(field(20, new byte[0]));
    responses.add(field(21, field(2, field(2, new byte[0]))));
    responses.add(field(21, field(1, new byte[0])));
    responses.add(field(25, varint(2, 80)));
    responses.add(field(25, concat(field(1, "h".getBytes()), varint(2, 0))));
    responses.add(field(25, concat(field(1, "h".getBytes()), varint(2, 65_536))));
    responses.add(field(25, concat(field(1, "h".getBytes()), varint(2, -1))));
    responses.add(field(25, concat(field(1, "h".getBytes()), varint(2, 1L << 32 | 80))));
    responses.add(field(22, field(1, new byte[] {(byte) 0xC3, 0x28}))); // not UTF-8
    responses.add(field(24, field(1, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80})));
    responses.add(field(23, field(1, "€".getBytes(java.nio.charset.StandardCharsets.UTF_8))));
    for (byte[] response : responses) {
      assertSameOutcome(concat(header(9), field(31, response)));
    }
  }

  @Test
  void cornerCasesOfTheEncoding_sameOutcome() {
    byte[] request = CLIENT.encodeRequest(2, casRequest()).toByteArray();
    byte[] response = SERVER.encodeResponse(2, mismatch()).toByteArray();
    for (byte[] frame : List.of(request, response)) {
      // A top-level end-group tag, unknown groups nested up to and past the recursion limit.
      assertSameOutcome(concat(frame, new byte[] {(byte) 0xA4, 0x06, (byte) 0xFF, (byte) 0xFF}));
      assertSameOutcome(concat(frame, nestedGroups(5)));
      assertSameOutcome(concat(frame, nestedGroups(100)));
      assertSameOutcome(concat(frame, nestedGroups(101)));
      assertSameOutcome(concat(frame, nestedGroups(5000)));
      // Header fields repeated (the last wins), with other wire types, a cluster id not UTF-8.
      assertSameOutcome(concat(header(9), frame));
      assertSameOutcome(concat(frame, new byte[] {8, 2}));
      assertSameOutcome(concat(frame, new byte[] {8, 1}));
      assertSameOutcome(concat(frame, new byte[] {10, 0}));
      assertSameOutcome(concat(frame, new byte[] {24, (byte) 0xFF, (byte) 0xFF, 0x7F}));
      assertSameOutcome(concat(frame, new byte[] {26, 0}));
      assertSameOutcome(concat(frame, new byte[] {18, 2, (byte) 0xC3, 0x28}));
      assertSameOutcome(concat(frame, field(2, "elsewhere".getBytes())));
    }
    assertSameOutcome(new byte[] {8, 1, 18, 2, (byte) 0xC3, 0x28, 24, 1});
    // A body field as a varint (skipped), an empty body of every kind, a body with a length
    // beyond the frame or negative.
    assertSameOutcome(concat(header(2), new byte[] {(byte) 0xF0, 1, 5}));
    for (int f = 29; f <= 39; f++) {
      assertSameOutcome(concat(header(2), field(f, new byte[0])));
    }
    assertSameOutcome(concat(header(2), new byte[] {(byte) 0xF2, 1, 100, 10, 1, 7}));
    assertSameOutcome(
        concat(
            header(2), new byte[] {(byte) 0xF2, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, -1, 15}));
    // Unknown groups inside every nested level, up to and past the limit counted from the top.
    byte[] versionIn = concat(varint(1, 4), varint(2, 3));
    for (int depth : new int[] {1, 95, 96, 97, 98, 99, 100}) {
      byte[] groups = nestedGroups(depth);
      assertSameOutcome(
          concat(header(2), field(30, concat(groups, field(14, field(1, new byte[] {1}))))));
      assertSameOutcome(
          concat(header(2), field(30, field(14, concat(field(1, new byte[] {1}), groups)))));
      assertSameOutcome(
          concat(
              header(2),
              field(
                  30,
                  field(
                      12, concat(field(1, new byte[] {1}), field(2, concat(versionIn, groups)))))));
      assertSameOutcome(
          concat(header(2), field(31, concat(groups, field(11, field(1, versionIn))))));
      assertSameOutcome(
          concat(header(2), field(31, field(11, field(1, concat(versionIn, groups))))));
      assertSameOutcome(
          concat(
              header(2),
              field(31, field(10, field(1, concat(field(2, concat(versionIn, groups)), groups))))));
      assertSameOutcome(concat(header(2), field(32, groups)));
    }
    // Unmatched and stray group tags inside the body.
    assertSameOutcome(concat(header(2), field(30, new byte[] {(byte) 0x9B, 0x06})));
    assertSameOutcome(concat(header(2), field(30, new byte[] {(byte) 0x9C, 0x06})));
    assertSameOutcome(
        concat(header(2), field(30, new byte[] {(byte) 0x9B, 0x06, (byte) 0xA4, 0x06})));
    assertSameOutcome(concat(header(2), field(31, field(10, new byte[] {0x0B, 0x0C}))));
    assertSameOutcome(concat(header(2), field(31, field(10, new byte[] {0x0C}))));
    assertSameOutcome(concat(header(2), field(31, field(10, new byte[] {0x0E}))));
    assertSameOutcome(concat(header(2), field(31, field(10, new byte[] {0x0F}))));
    // Known field numbers with every other wire type, at every level.
    for (int wireType = 0; wireType < 6; wireType++) {
      byte[] odd = oddField(1, wireType);
      byte[] odd2 = oddField(2, wireType);
      assertSameOutcome(
          concat(header(2), field(30, concat(field(14, concat(odd, field(1, new byte[] {1})))))));
      assertSameOutcome(concat(header(2), field(30, concat(oddField(14, wireType), odd))));
      assertSameOutcome(
          concat(
              header(2),
              field(30, field(12, concat(field(1, new byte[] {1}), odd2, field(2, odd))))));
      assertSameOutcome(
          concat(header(2), field(31, concat(oddField(10, wireType), field(25, odd)))));
      assertSameOutcome(
          concat(header(2), field(31, field(25, concat(field(1, new byte[] {104}), odd2)))));
      assertSameOutcome(concat(header(2), field(31, field(10, field(1, concat(odd, odd2))))));
      assertSameOutcome(concat(header(2), field(31, field(21, concat(odd, odd2)))));
    }
    // Oneof switches, inside the body and between bodies: the last case wins, merged with its own
    // earlier occurrences.
    byte[] get = field(10, field(1, new byte[] {1}));
    byte[] fence = field(14, field(1, new byte[] {2}));
    byte[] quorum = field(10, varint(2, 1));
    assertSameOutcome(concat(header(3), field(30, concat(get, fence))));
    assertSameOutcome(concat(header(3), field(30, concat(get, fence, quorum))));
    assertSameOutcome(concat(header(3), field(30, concat(quorum, fence, get))));
    assertSameOutcome(concat(header(3), field(30, get), field(30, fence)));
    assertSameOutcome(concat(header(3), field(30, get), field(30, quorum)));
    assertSameOutcome(concat(header(3), field(30, get), field(36, new byte[0]), field(30, quorum)));
    assertSameOutcome(concat(header(3), field(36, new byte[0]), field(30, get)));
    assertSameOutcome(concat(header(3), field(30, get), field(31, response)));
    assertSameOutcome(concat(header(3), field(31, field(22, new byte[0])), field(30, get)));
    byte[] written = field(11, field(1, varint(1, 5)));
    byte[] writtenTs = field(11, field(1, varint(2, 6)));
    byte[] invalid = field(24, field(1, "no".getBytes()));
    assertSameOutcome(concat(header(3), field(31, concat(written, invalid, writtenTs))));
    assertSameOutcome(concat(header(3), field(31, concat(written, invalid))));
    assertSameOutcome(concat(header(3), field(31, written), field(31, writtenTs)));
    assertSameOutcome(concat(header(3), field(31, written), field(37, new byte[0])));
    assertSameOutcome(concat(header(3), field(37, new byte[0]), field(31, written)));
    // A body cut mid-varint, completed by a second occurrence: protobuf refused the first.
    assertSameOutcome(
        concat(header(3), field(30, new byte[] {8, (byte) 0x80}), field(30, new byte[] {1})));
    assertSameOutcome(
        concat(header(3), field(31, new byte[] {0x5A, 2, 8}), field(31, new byte[] {1})));
    // Repeated fields: numbers and bytes overwritten, messages merged.
    assertSameOutcome(
        concat(
            header(3),
            field(
                30,
                field(
                    12,
                    concat(
                        field(1, new byte[] {1}),
                        field(2, varint(1, 9)),
                        field(3, new byte[] {5}),
                        field(1, new byte[] {2, 2}),
                        field(2, varint(2, 8)),
                        field(3, new byte[0]))))));
    assertSameOutcome(
        concat(
            header(3),
            field(
                31,
                field(
                    21,
                    concat(
                        field(2, field(1, new byte[] {1})),
                        field(1, varint(1, 3)),
                        field(2, field(2, varint(1, 4))),
                        field(2, field(1, new byte[] {9, 9})))))));
  }

  @Test
  void otherBodies_sameOutcome() {
    TopologySnapshot topology =
        new TopologySnapshot(
            3,
            1,
            List.of(new TopologySnapshot.Member(1, "127.0.0.1", 7501, true)),
            List.of(new TopologySnapshot.Range(Long.MAX_VALUE, List.of(1), 1)),
            4_020_000);
    for (ClientCodec codec : List.of(SERVER, CLIENT)) {
      assertSameOutcome(codec.encodeWatchTopology(4).toByteArray());
      assertSameOutcome(codec.encodePing(4).toByteArray());
      assertSameOutcome(codec.encodePong(4).toByteArray());
      assertSameOutcome(codec.encodeTopology(4, topology).toByteArray());
      assertSameOutcome(
          codec
              .encodeAdminRequest(
                  4,
                  AdminRequest.newBuilder()
                      .setStatus(AdminRequest.Status.getDefaultInstance())
                      .build())
              .toByteArray());
      assertSameOutcome(
          codec
              .encodeAdminResponse(4, AdminResponse.newBuilder().setRefused("no").build())
              .toByteArray());
    }
  }

  @Test
  void decodedRecords_keepNoShareOfTheFrame() throws WireDecodeException {
    for (int seed = 0; seed < 500; seed++) {
      RandomWire wire = new RandomWire(seed);
      byte[] request = CLIENT.encodeRequest(seed, wire.request()).toByteArray();
      ClientFrame.Request read =
          assertInstanceOf(ClientFrame.Request.class, readAliased(SERVER, request));
      String before = WireTesting.describe(read.request());
      Arrays.fill(request, (byte) 0x55);
      assertEquals(before, WireTesting.describe(read.request()));

      byte[] response = SERVER.encodeResponse(seed, wire.response()).toByteArray();
      ClientFrame frame = readAliased(CLIENT, response);
      ClientFrame copy = CLIENT.read(CodedInputStream.newInstance(response.clone()));
      Arrays.fill(response, (byte) 0x55);
      assertEquals(copy, frame);
    }
    // The check can fail: a value that did share the frame would have changed.
    byte[] frame =
        SERVER
            .encodeResponse(
                1,
                new OperationResponse.Completed(
                    new ClientOutcome.ReadResult(
                        Optional.of(
                            new io.frsm.api.Versioned(new byte[] {1, 2, 3}, new Version(1, 1))))))
            .toByteArray();
    ClientFrame before = readAliased(CLIENT, frame);
    frame[frame.length - 1] ^= 1;
    assertNotEquals(before, readAliased(CLIENT, frame));
  }

  // ---- the comparison

  private static ClientFrame readAliased(ClientCodec codec, byte[] frame)
      throws WireDecodeException {
    CodedInputStream in = UnsafeByteOperations.unsafeWrap(frame).newCodedInput();
    in.enableAliasing(true);
    return codec.read(in);
  }

  /** Both sides read the frame: each as the generated parser did, aliased or not. */
  private static void assertSameOutcome(byte[] frame) {
    for (ClientCodec codec : List.of(SERVER, CLIENT)) {
      Object before = outcome(codec, frame, false, false);
      assertEquals(before, outcome(codec, frame, true, true), () -> "frame " + hex(frame));
      assertEquals(before, outcome(codec, frame, true, false), () -> "frame " + hex(frame));
    }
  }

  /** The decoded frame (records: equal by content; a request described), or "refused". */
  private static Object outcome(ClientCodec codec, byte[] frame, boolean direct, boolean aliased) {
    CodedInputStream in =
        aliased
            ? UnsafeByteOperations.unsafeWrap(frame).newCodedInput()
            : CodedInputStream.newInstance(frame);
    in.enableAliasing(aliased);
    try {
      ClientFrame f = direct ? codec.read(in) : codec.decode(GENERATED.parse(in));
      if (f instanceof ClientFrame.Request r) {
        return List.of("request", r.requestId(), WireTesting.describe(r.request()));
      }
      return f;
    } catch (WireDecodeException e) {
      return "refused";
    }
  }

  // ---- frames

  private static byte[] anyFrame(RandomWire wire, Random random) {
    long id = random.nextBoolean() ? random.nextInt(100) : random.nextLong();
    return switch (random.nextInt(8)) {
      case 0, 1, 2 -> CLIENT.encodeRequest(id, wire.request()).toByteArray();
      case 3, 4, 5 -> SERVER.encodeResponse(id, wire.response()).toByteArray();
      case 6 -> CLIENT.encodePing(id).toByteArray();
      default ->
          SERVER
              .encodeAdminResponse(id, AdminResponse.newBuilder().setAccepted("x").build())
              .toByteArray();
    };
  }

  private static OperationRequest casRequest() {
    return new OperationRequest(
        new io.frsm.client.transport.ClientOperation.Cas(
            io.frsm.client.transport.KeyBytes.wrap(new byte[] {1, 2}),
            new Version(3, 4),
            new byte[] {5},
            new io.frsm.client.transport.ClientOperation.Hint(new byte[16], true)),
        7);
  }

  private static OperationResponse mismatch() {
    return new OperationResponse.Completed(
        new ClientOutcome.Mismatch(
            new Version(1, 2),
            Optional.of(new io.frsm.api.Versioned(new byte[] {3, 4}, new Version(5, 6)))));
  }

  private static byte[] header(long requestId) {
    return ClientEnvelope.newBuilder()
        .setProtocolVersion(WireFormat.PROTOCOL_VERSION)
        .setClusterId(CLUSTER)
        .setRequestId(requestId)
        .build()
        .toByteArray();
  }

  private static byte[] field(int number, byte[] content) {
    return write(out -> out.writeByteArray(number, content));
  }

  private static byte[] varint(int number, long value) {
    return write(out -> out.writeUInt64(number, value));
  }

  /** Field {@code number} with wire type {@code wireType} and a well-formed payload. */
  private static byte[] oddField(int number, int wireType) {
    return write(
        out -> {
          switch (wireType) {
            case 0 -> out.writeUInt64(number, 3);
            case 1 -> out.writeFixed64(number, 3);
            case 2 -> out.writeByteArray(number, new byte[] {3});
            case 3 -> {
              out.writeTag(number, 3);
              out.writeTag(number, 4);
            }
            case 4 -> out.writeTag(number, 4);
            default -> out.writeFixed32(number, 3);
          }
        });
  }

  private interface Writes {
    void to(CodedOutputStream out) throws IOException;
  }

  private static byte[] write(Writes writes) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes);
      writes.to(out);
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
    return switch (random.nextInt(9)) {
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
      case 4 -> { // another request's or response's body field appended
        byte[] other =
            random.nextBoolean()
                ? CLIENT.encodeRequest(0, wire.request()).toByteArray()
                : SERVER.encodeResponse(0, wire.response()).toByteArray();
        yield concat(frame, Arrays.copyOfRange(other, header(0).length, other.length));
      }
      case 5 -> { // an unknown field appended, of a random wire type
        int wireType = random.nextInt(8);
        byte[] tag = {(byte) ((7 << 3) | wireType), 0, 0, 0, 0, 0, 0, 0, 0, 0};
        yield concat(frame, Arrays.copyOf(tag, 1 + random.nextInt(10)));
      }
      case 6 -> { // set one byte to a value that often is a tag or a length
        byte[] m = frame.clone();
        m[at] = (byte) new int[] {0, 1, 2, 3, 4, 8, 10, 12, 0x7F, 0x80, 0xFF}[random.nextInt(11)];
        yield m;
      }
      case 7 -> { // an unknown field inserted anywhere (often inside a nested message)
        byte[] unknown = oddField(7 + random.nextInt(3), random.nextInt(6));
        yield concat(
            Arrays.copyOf(frame, at), unknown, Arrays.copyOfRange(frame, at, frame.length));
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
