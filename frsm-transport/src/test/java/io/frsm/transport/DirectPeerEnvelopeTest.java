package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.IdempotencyToken;
import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.consensus.core.RoundId;
import io.frsm.consensus.core.TermRecord;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * The envelope frsm writes without building protobuf objects ({@link DirectPeerEnvelope}) has the
 * bytes of the one the generated classes build ({@link FrsmPeerWireCodec#encode}): the wire format
 * did not change. Random messages of every kind, and each kind at its edges (empty and largest
 * values, zero and largest numbers, absent optional parts).
 */
class DirectPeerEnvelopeTest {
  private static final FrsmPeerWireCodec CODEC = FrsmPeerWireCodec.INSTANCE;
  private static final int VERSION = WireFormat.PROTOCOL_VERSION;
  private static final String[] CLUSTERS = {
    WireTesting.CLUSTER, "c", "ü-cluster-€-𝄞", "x".repeat(64),
  };

  @Property(tries = 3000)
  void randomMessages_sameBytesAsTheGeneratedEnvelope(@ForAll long seed) {
    RandomWire random = new RandomWire(seed);
    String cluster = CLUSTERS[(int) Math.floorMod(seed, (long) CLUSTERS.length)];
    assertSameBytes(cluster, random.nonNegativeInt(), random.message());
  }

  @Test
  void everyMessageKind_atItsEdges_sameBytesAsTheGeneratedEnvelope() {
    Set<Class<?>> covered = new HashSet<>();
    for (Message m : edgeMessages()) {
      for (int sender : new int[] {0, 1, Integer.MAX_VALUE}) {
        assertSameBytes(WireTesting.CLUSTER, sender, m);
      }
      covered.add(m.getClass());
    }
    assertEquals(messageTypes(), covered);
  }

  @Test
  void largestValueAndKey_sameBytesAsTheGeneratedEnvelope() {
    byte[] value = new byte[16 * 1024 * 1024];
    Arrays.fill(value, (byte) 0xA5);
    Key key = Key.wrap(filled(64 * 1024, (byte) 0x5A));
    AcceptedValue big =
        AcceptedValue.live(
            InputBounds.MAX_NUMBER,
            InputBounds.MAX_NUMBER,
            new Ballot(InputBounds.MAX_NUMBER, Integer.MAX_VALUE, Integer.MAX_VALUE),
            value,
            true,
            new IdempotencyToken(-1, Long.MIN_VALUE));
    assertSameBytes(WireTesting.CLUSTER, 7, new Message.Commit(key, big));
  }

  @Test
  void writtenEnvelope_decodesToTheSameMessage() throws WireDecodeException {
    PeerCodec reader = new PeerCodec(WireTesting.CLUSTER);
    for (Message m : edgeMessages()) {
      MessageLite written = CODEC.encoder(VERSION, WireTesting.CLUSTER, 3).encode(m);
      SenderFrame<Message> decoded =
          reader.read(CodedInputStream.newInstance(written.toByteArray()));
      assertEquals(3, decoded.senderNodeId());
      assertEquals(m, decoded.message());
    }
  }

  private static void assertSameBytes(String cluster, int sender, Message m) {
    byte[] built = CODEC.encode(VERSION, cluster, sender, m).toByteArray();
    MessageLite written = CODEC.encoder(VERSION, cluster, sender).encode(m);
    assertEquals(built.length, written.getSerializedSize(), m.toString());
    assertArrayEquals(built, written.toByteArray(), m.toString());
    // As FrameEncoder writes it: into a direct buffer's view.
    ByteBuffer direct = ByteBuffer.allocateDirect(built.length);
    CodedOutputStream out = CodedOutputStream.newInstance(direct);
    try {
      written.writeTo(out);
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
    out.checkNoSpaceLeft();
    byte[] viaDirect = new byte[built.length];
    direct.get(0, viaDirect);
    assertArrayEquals(built, viaDirect, m.toString());
  }

  /** Each message kind with its parts absent or empty, and again with every number at its end. */
  private static List<Message> edgeMessages() {
    Key key = Key.wrap(new byte[] {1});
    Key longKey = Key.wrap(filled(4096, (byte) 0xFF));
    RoundId zeroRound = new RoundId(0, 0, 0);
    RoundId maxRound = new RoundId(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
    RoundId negativeRound = new RoundId(-1, Integer.MIN_VALUE, -1); // uint32/uint64 bit patterns
    Ballot low = new Ballot(1, 0, 0);
    Ballot high = new Ballot(InputBounds.MAX_NUMBER, Integer.MAX_VALUE, Integer.MAX_VALUE);
    AcceptedValue emptyLive = AcceptedValue.live(0, 0, low, new byte[0], false, null);
    AcceptedValue emptyChosen = AcceptedValue.live(0, 0, low, new byte[0], true, null);
    AcceptedValue delete = AcceptedValue.delete(0, 0, low, false, null);
    AcceptedValue deleteChosen =
        AcceptedValue.delete(InputBounds.MAX_NUMBER, 1, high, true, new IdempotencyToken(0, 0));
    AcceptedValue full =
        AcceptedValue.live(
            InputBounds.MAX_NUMBER,
            InputBounds.MAX_NUMBER,
            high,
            filled(300, (byte) 7),
            false,
            new IdempotencyToken(0x0102030405060708L, -2));
    AcceptedValue fullChosen = full.withChosen(true);
    long max = InputBounds.MAX_NUMBER;
    List<Message> all = new ArrayList<>();
    for (RoundId r : new RoundId[] {zeroRound, maxRound, negativeRound}) {
      all.add(new Message.Prepare(key, r, low, 0, 0));
      all.add(new Message.Prepare(longKey, r, high, max, max));
      all.add(new Message.Promise(key, r, low, Ballot.NONE, null));
      all.add(new Message.Promise(key, r, high, low, emptyLive));
      all.add(new Message.Promise(key, r, high, high, full));
      all.add(new Message.Accept(key, r, emptyLive, 0, 0));
      all.add(new Message.Accept(key, r, delete, max, max));
      all.add(new Message.Accept(longKey, r, full, 1, 1));
      all.add(new Message.Accepted(key, r, low, 0, 0));
      all.add(new Message.Accepted(key, r, high, max, max));
      all.add(new Message.Reject(key, r, Ballot.NONE, Ballot.NONE, null));
      all.add(new Message.Reject(key, r, high, low, deleteChosen));
      all.add(new Message.Read(key, r, 0));
      all.add(new Message.Read(key, r, max));
      all.add(new Message.ReadReply(key, r, Ballot.NONE, null));
      all.add(new Message.ReadReply(key, r, high, fullChosen));
      all.add(new Message.TermPersist(RangeTerm.cellKey(0), r, 0, 1, 0, 0));
      all.add(
          new Message.TermPersist(
              RangeTerm.cellKey(Integer.MAX_VALUE), r, Integer.MAX_VALUE, max, max, max));
      all.add(new Message.TermPersisted(key, r, 0, null));
      all.add(
          new Message.TermPersisted(
              key, r, max, new TermRecord(max - 1, Integer.MAX_VALUE, Integer.MAX_VALUE, max)));
      all.add(new Message.TermPersisted(key, r, 2, new TermRecord(1, 0, 0, 1)));
      all.add(new Message.StaleTerm(key, r, 0));
      all.add(new Message.StaleTerm(key, r, max));
      all.add(
          new Message.ListKeys(
              RangeTerm.cellKey(1), r, 1, 0, Long.MIN_VALUE, Long.MAX_VALUE, null, 1, 0));
      all.add(
          new Message.ListKeys(
              RangeTerm.cellKey(Integer.MAX_VALUE),
              r,
              Integer.MAX_VALUE,
              max,
              0,
              0,
              null,
              Integer.MAX_VALUE,
              max));
      all.add(
          new Message.ListKeys(
              RangeTerm.cellKey(3), r, 3, 5, key.token(), key.token(), key, 1024, 9));
      all.add(new Message.KeysListed(key, r, List.of(), false));
      all.add(new Message.KeysListed(key, r, List.of(key, longKey), true));
      all.add(new Message.StaleRing(key, r, 0));
      all.add(new Message.StaleRing(key, r, max));
    }
    all.add(new Message.Commit(key, emptyChosen));
    all.add(new Message.Commit(key, deleteChosen));
    all.add(new Message.Commit(longKey, fullChosen));
    all.add(new Message.Purge(key, new PurgeMark(0, 0, 0), 0));
    all.add(new Message.Purge(key, new PurgeMark(max, max, max), max));
    List<Key> many = new ArrayList<>();
    for (int i = 0; i < 1024; i++) {
      many.add(Key.wrap(new byte[] {(byte) i, (byte) (i >> 8), 9}));
    }
    all.add(new Message.KeysListed(key, new RoundId(1, 1, 1), many, true));
    return all;
  }

  private static Set<Class<?>> messageTypes() {
    Set<Class<?>> types = new HashSet<>();
    Deque<Class<?>> todo = new ArrayDeque<>(List.of(Message.class));
    while (!todo.isEmpty()) {
      Class<?> c = todo.pop();
      if (c.isSealed()) {
        todo.addAll(List.of(c.getPermittedSubclasses()));
      } else {
        types.add(c);
      }
    }
    return types;
  }

  private static byte[] filled(int length, byte b) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, b);
    return bytes;
  }
}
