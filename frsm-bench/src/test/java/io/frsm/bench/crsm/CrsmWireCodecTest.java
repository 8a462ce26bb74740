package io.frsm.bench.crsm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.MessageLite;
import io.frsm.api.Version;
import io.frsm.bench.crsm.proto.CrsmEnvelope;
import io.frsm.cell.Ballot;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.transport.PeerWireCodec;
import java.lang.reflect.RecordComponent;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link CrsmWireCodec}: every message and command type survives the wire; bad bodies refused. */
class CrsmWireCodecTest {
  private static final CrsmWireCodec CODEC = CrsmWireCodec.INSTANCE;

  @Test
  void everyMessage_roundTrips_withItsHeader() throws Exception {
    Set<Class<?>> messageTypes = new LinkedHashSet<>();
    Set<Class<?>> commandTypes = new LinkedHashSet<>();
    for (long seed = 0; seed < 2_000; seed++) {
      RandomMessages random = new RandomMessages(seed);
      ShardMessage sent = new ShardMessage(random.nextInt(256), random.message());
      int sender = random.nextInt(Integer.MAX_VALUE);
      PeerWireCodec.Envelope<ShardMessage> got = parse(CODEC.encode(1, "c-1", sender, sent));
      assertEquals(1, got.protocolVersion());
      assertEquals("c-1", got.clusterId());
      assertEquals(sender, got.senderNodeId());
      assertEquals(canonical(sent), canonical(got.body()), "seed " + seed);
      messageTypes.add(sent.message().getClass());
      random.commandTypesSeen(commandTypes);
    }
    assertEquals(leaves(CrsmMessage.class), messageTypes, "the generator covers every message");
    assertEquals(leaves(Command.class), commandTypes, "the generator covers every command");
  }

  @Test
  void keepalive_isRecognised_withItsHeader_andHasNoBody() throws Exception {
    PeerWireCodec.Envelope<ShardMessage> got = parse(CODEC.encodeKeepalive(1, "c-1", 7));
    assertTrue(got.keepalive());
    assertEquals(7, got.senderNodeId());
    assertEquals("c-1", got.clusterId());
    assertThrows(WireDecodeException.class, got::body);
    assertFalse(parse(prepare()).keepalive(), "a message is not a keep-alive");
  }

  @Test
  void missingBallot_isRefused() {
    CrsmEnvelope e =
        prepare().toBuilder().setPrepare(prepare().getPrepare().toBuilder().clearBallot()).build();
    WireDecodeException x = assertThrows(WireDecodeException.class, () -> parse(e).body());
    assertTrue(x.getMessage().contains("ballot"), x.getMessage());
  }

  @Test
  void slotBelowMinusOne_isRefused() {
    CrsmEnvelope e =
        prepare().toBuilder()
            .setPrepare(prepare().getPrepare().toBuilder().setFromSlot(-2))
            .build();
    assertThrows(WireDecodeException.class, () -> parse(e).body());
  }

  @Test
  void shardOutOfRange_isRefused() {
    CrsmEnvelope e = prepare().toBuilder().setShard(256).build();
    assertThrows(WireDecodeException.class, () -> parse(e).body());
  }

  @Test
  void envelopeWithoutBody_isRefused() {
    CrsmEnvelope e = prepare().toBuilder().clearPrepare().build();
    WireDecodeException x = assertThrows(WireDecodeException.class, () -> parse(e).body());
    assertTrue(x.getMessage().contains("without a (known) body"), x.getMessage());
  }

  @Test
  void unknownCommandType_isRefused() {
    CrsmEnvelope accept =
        CODEC.encode(
            1,
            "c",
            0,
            new ShardMessage(
                0,
                new CrsmMessage.Accept(
                    new Ballot(1, 0, 1),
                    0,
                    List.of(new ClientCommand(0, 1, new Command.Get(new byte[] {1}))),
                    -1,
                    -1)));
    CrsmEnvelope bad =
        accept.toBuilder()
            .setAccept(
                accept.getAccept().toBuilder()
                    .setBatch(0, accept.getAccept().getBatch(0).toBuilder().setTypeValue(99)))
            .build();
    WireDecodeException x = assertThrows(WireDecodeException.class, () -> parse(bad).body());
    assertTrue(x.getMessage().contains("command type 99"), x.getMessage());
  }

  @Test
  void garbage_isRefused() {
    assertThrows(
        WireDecodeException.class,
        () -> CODEC.parse(CodedInputStream.newInstance(new byte[] {(byte) 0xff, (byte) 0xff})));
  }

  private static CrsmEnvelope prepare() {
    return CODEC.encode(
        1, "c", 0, new ShardMessage(3, new CrsmMessage.Prepare(new Ballot(2, 1, 1), 5)));
  }

  private static PeerWireCodec.Envelope<ShardMessage> parse(MessageLite envelope)
      throws WireDecodeException {
    return CODEC.parse(CodedInputStream.newInstance(envelope.toByteArray()));
  }

  /** The concrete classes of a sealed hierarchy. */
  private static Set<Class<?>> leaves(Class<?> root) {
    Set<Class<?>> out = new LinkedHashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(root));
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (c.isSealed()) {
        todo.addAll(List.of(c.getPermittedSubclasses()));
      } else {
        out.add(c);
      }
    }
    return Set.copyOf(out);
  }

  /** Records rendered field by field, byte arrays as hex (records compare arrays by identity). */
  static String canonical(Object o) throws ReflectiveOperationException {
    if (o instanceof byte[] bytes) {
      return HexFormat.of().formatHex(bytes);
    }
    if (o instanceof List<?> list) {
      List<String> parts = new ArrayList<>();
      for (Object e : list) {
        parts.add(canonical(e));
      }
      return parts.toString();
    }
    if (o instanceof Record r && !(o instanceof Ballot) && !(o instanceof Version)) {
      StringBuilder s = new StringBuilder(r.getClass().getSimpleName()).append('(');
      for (RecordComponent c : r.getClass().getRecordComponents()) {
        s.append(c.getName()).append('=').append(canonical(c.getAccessor().invoke(r))).append(' ');
      }
      return s.append(')').toString();
    }
    return String.valueOf(o);
  }

  /** Random messages of every type, with edge values (-1 slots, ⊥ ballots, empty batches). */
  private static final class RandomMessages {
    private final SplittableRandom random;
    private final List<Class<?>> commandTypes = new ArrayList<>();

    RandomMessages(long seed) {
      this.random = new SplittableRandom(seed);
    }

    int nextInt(int bound) {
      return random.nextInt(bound);
    }

    void commandTypesSeen(Set<Class<?>> into) {
      into.addAll(commandTypes);
    }

    CrsmMessage message() {
      return switch (random.nextInt(9)) {
        case 0 -> new CrsmMessage.Prepare(ballot(), slot());
        case 1 -> new CrsmMessage.Promise(ballot(), slotValues());
        case 2 -> new CrsmMessage.Accept(ballot(), slot(), batch(), slot(), slot());
        case 3 -> new CrsmMessage.Accepted(ballot(), slot(), slot());
        case 4 -> new CrsmMessage.Reject(ballot(), ballot());
        case 5 -> new CrsmMessage.Heartbeat(ballot(), slot(), slot());
        case 6 -> new CrsmMessage.HeartbeatAck(ballot(), slot());
        case 7 -> new CrsmMessage.Fetch(ballot(), slot());
        default -> new CrsmMessage.Learn(ballot(), slot(), batch());
      };
    }

    private Ballot ballot() {
      if (random.nextInt(5) == 0) {
        return Ballot.NONE;
      }
      return new Ballot(
          1 + random.nextLong(Long.MAX_VALUE - 1),
          random.nextInt(Integer.MAX_VALUE),
          random.nextInt(Integer.MAX_VALUE));
    }

    private long slot() {
      return random.nextInt(4) == 0 ? -1 : random.nextLong(Long.MAX_VALUE);
    }

    private List<CrsmMessage.SlotValue> slotValues() {
      List<CrsmMessage.SlotValue> out = new ArrayList<>();
      for (int i = random.nextInt(4); i > 0; i--) {
        out.add(new CrsmMessage.SlotValue(slot(), ballot(), batch(), random.nextBoolean()));
      }
      return out;
    }

    private List<ClientCommand> batch() {
      List<ClientCommand> out = new ArrayList<>();
      for (int i = random.nextInt(5); i > 0; i--) {
        Command c = command();
        commandTypes.add(c.getClass());
        out.add(
            new ClientCommand(
                random.nextInt(Integer.MAX_VALUE), random.nextLong(Long.MAX_VALUE), c));
      }
      return out;
    }

    private Command command() {
      byte[] key = bytes(1 + random.nextInt(16));
      return switch (random.nextInt(5)) {
        case 0 -> new Command.Get(key);
        case 1 -> new Command.Create(key, bytes(random.nextInt(600)));
        case 2 -> new Command.Cas(key, version(), bytes(random.nextInt(600)));
        case 3 -> new Command.Delete(key, version());
        default -> new Command.Fence(key);
      };
    }

    private Version version() {
      return new Version(random.nextLong(Long.MAX_VALUE), random.nextLong(Long.MAX_VALUE));
    }

    private byte[] bytes(int n) {
      byte[] b = new byte[n];
      for (int i = 0; i < n; i++) {
        b[i] = (byte) random.nextInt(256);
      }
      return b;
    }
  }
}
