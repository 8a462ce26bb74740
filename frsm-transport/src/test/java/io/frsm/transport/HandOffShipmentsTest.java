package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.CellKind;
import io.frsm.cell.Key;
import io.frsm.client.transport.WireDecodeException;
import io.frsm.consensus.core.HandOffShipment;
import io.frsm.transport.proto.HandOffChunk;
import io.frsm.transport.proto.HandOffEntries;
import io.frsm.transport.proto.HandOffEntry;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The hand-off shipment's wire form (docs/formats/streaming.md "Hand-off shipments"): what the
 * stand-in cuts into chunks the successor puts together unchanged, and whatever a peer sends
 * instead — chunks mutated byte by byte at random (seeded; replay with -Dfrsm.handoff.seed=N),
 * reordered, of another shipment, with bad checksums or unchosen values — is refused with a {@link
 * WireDecodeException}, never any other exception, and never taken as a different shipment unless
 * its checksum was recomputed (the mutation then only changes what the core's own checks see).
 */
class HandOffShipmentsTest {
  private static final long SEED = Long.getLong("frsm.handoff.seed", 0x23L);

  @Test
  void aShipment_roundTrips_throughManySmallChunks() throws Exception {
    HandOffShipment s = shipment(new SplittableRandom(SEED), 500);
    List<HandOffChunk> chunks = HandOffShipments.chunks(s, 2_000);
    assertTrue(chunks.size() > 10, "chunks: " + chunks.size());
    HandOffShipments.Assembly a = new HandOffShipments.Assembly();
    HandOffShipment back = null;
    for (int i = 0; i < chunks.size(); i++) {
      back = a.add(chunks.get(i));
      if (i < chunks.size() - 1) {
        assertNull(back);
      }
    }
    assertEquals(s, back);
  }

  /**
   * The covered term (docs/PROTOCOL.md "A killed holder: covering its term") travels inside the
   * checksummed entries of every chunk; a chunk that disagrees, or a term other than the one before
   * the shipment's, is refused.
   */
  @Test
  void theCoveredTerm_roundTrips_andADisagreeingChunkIsRefused() throws Exception {
    HandOffShipment drawn = shipment(new SplittableRandom(SEED), 200);
    HandOffShipment plain = new HandOffShipment(drawn.range(), drawn.term() + 1, drawn.entries());
    HandOffShipment s = plain.covering(plain.term() - 1);
    List<HandOffChunk> chunks = HandOffShipments.chunks(s, 1_000);
    assertTrue(chunks.size() > 2, "chunks: " + chunks.size());
    HandOffShipments.Assembly a = new HandOffShipments.Assembly();
    HandOffShipment back = null;
    for (HandOffChunk c : chunks) {
      back = a.add(c);
    }
    assertEquals(s, back);
    assertEquals(s.term() - 1, back.coversTerm());
    // The second chunk of the plain shipment (covers nothing) inside the covering one.
    List<HandOffChunk> plainChunks = HandOffShipments.chunks(plain, 1_000);
    HandOffShipments.Assembly mixed = new HandOffShipments.Assembly();
    mixed.add(chunks.get(0));
    assertThrows(WireDecodeException.class, () -> mixed.add(plainChunks.get(1)));
    // A covered term that is not the one before the shipment's.
    HandOffEntries wrong = HandOffEntries.newBuilder().setCoversTerm(s.term() + 5).build();
    HandOffChunk bad =
        HandOffChunk.newBuilder()
            .setRange(s.range())
            .setTerm(s.term())
            .setIndex(0)
            .setLast(true)
            .setEntries(wrong.toByteString())
            .setCrc32C(HandOffShipments.crc32c(wrong.toByteString()))
            .build();
    assertThrows(WireDecodeException.class, () -> new HandOffShipments.Assembly().add(bad));
  }

  @Test
  void anEmptyShipment_isOneLastChunk() throws Exception {
    HandOffShipment s = new HandOffShipment(3, 9, List.of());
    List<HandOffChunk> chunks = HandOffShipments.chunks(s, HandOffShipments.CHUNK_TARGET_BYTES);
    assertEquals(1, chunks.size());
    assertEquals(s, new HandOffShipments.Assembly().add(chunks.get(0)));
  }

  @Test
  void chunksOutOfOrder_ofAnotherShipment_orAfterTheLast_areRefused() throws Exception {
    HandOffShipment s = shipment(new SplittableRandom(SEED), 200);
    List<HandOffChunk> chunks = HandOffShipments.chunks(s, 1_000);
    assertThrows(
        WireDecodeException.class, () -> new HandOffShipments.Assembly().add(chunks.get(1)));
    HandOffShipments.Assembly a = new HandOffShipments.Assembly();
    a.add(chunks.get(0));
    HandOffChunk otherTerm = chunks.get(1).toBuilder().setTerm(s.term() + 1).build();
    assertThrows(WireDecodeException.class, () -> a.add(otherTerm));
    assertThrows(WireDecodeException.class, () -> a.add(chunks.get(1)), "a refusal spends it");
    HandOffShipments.Assembly whole = new HandOffShipments.Assembly();
    for (HandOffChunk c : chunks) {
      whole.add(c);
    }
    assertThrows(WireDecodeException.class, () -> whole.add(chunks.get(0)));
  }

  @Test
  void aValueNotChosen_keysOutOfOrder_anEmptyKey_orATermOutOfBounds_areRefused() {
    AcceptedValue unchosen = value(new SplittableRandom(SEED)).withChosen(false);
    assertRefused(entries(entry(Key.wrap(new byte[] {1}), unchosen)), 1);
    Key a = Key.wrap(new byte[] {1});
    Key b = Key.wrap(new byte[] {2});
    Key high = a.compareTo(b) > 0 ? a : b;
    Key low = high == a ? b : a;
    assertRefused(entries(entry(high, null), entry(low, null)), 1);
    assertRefused(entries(entry(low, null), entry(low, null)), 1);
    assertRefused(entries(HandOffEntry.newBuilder().build()), 1);
    assertRefused(entries(), 0);
    assertRefused(entries(), 1L << 62);
  }

  @Test
  void mutatedChunks_areRefusedOrTakenWhole_neverThrowAnythingElse() throws Exception {
    SplittableRandom random = new SplittableRandom(SEED);
    HandOffShipment s = shipment(random, 50);
    HandOffChunk valid = HandOffShipments.chunks(s, HandOffShipments.CHUNK_TARGET_BYTES).get(0);
    byte[] bytes = valid.toByteArray();
    int refused = 0;
    int sameShipment = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] m = bytes.clone();
      int flips = 1 + random.nextInt(4);
      for (int f = 0; f < flips; f++) {
        m[random.nextInt(m.length)] ^= (byte) (1 + random.nextInt(255));
      }
      HandOffChunk chunk;
      try {
        chunk = HandOffChunk.parseFrom(m);
      } catch (InvalidProtocolBufferException e) {
        refused++; // the stream framing refuses it before the assembly sees it
        continue;
      }
      try {
        HandOffShipment got = new HandOffShipments.Assembly().add(chunk);
        // Taken: only a mutation outside the checksummed entries (the range, the term, the flag)
        // gets through; the entries are then exactly what was sent.
        if (got != null) {
          assertEquals(s.entries(), got.entries(), "mutation " + i);
          sameShipment++;
        }
      } catch (WireDecodeException e) {
        refused++;
      } catch (RuntimeException e) {
        fail("mutation " + i + " threw " + e, e);
      }
    }
    assertTrue(refused > 4_000, "refused " + refused);
    assertTrue(refused + sameShipment <= 5_000);
  }

  @Test
  void garbageEntries_withAValidChecksum_areRefusedWithoutAnyOtherException() {
    SplittableRandom random = new SplittableRandom(SEED);
    HandOffShipment s = shipment(random, 20);
    byte[] entries = HandOffShipments.chunks(s, 1 << 20).get(0).getEntries().toByteArray();
    int taken = 0;
    for (int i = 0; i < 5_000; i++) {
      byte[] m = entries.clone();
      m[random.nextInt(m.length)] ^= (byte) (1 + random.nextInt(255));
      ByteString raw = ByteString.copyFrom(m);
      HandOffChunk c =
          HandOffChunk.newBuilder()
              .setRange(1)
              .setTerm(5)
              .setLast(true)
              .setEntries(raw)
              .setCrc32C(HandOffShipments.crc32c(raw))
              .build();
      try {
        HandOffShipment got = new HandOffShipments.Assembly().add(c);
        for (HandOffShipment.Entry e : got.entries()) {
          assertTrue(e.chosen() == null || e.chosen().chosen());
        }
        taken++;
      } catch (WireDecodeException e) {
        // refused
      } catch (RuntimeException e) {
        fail("mutation " + i + " threw " + e, e);
      }
    }
    assertTrue(taken < 5_000, "some mutations must be refused");
  }

  private static void assertRefused(HandOffEntries entries, long term) {
    ByteString raw = entries.toByteString();
    HandOffChunk c =
        HandOffChunk.newBuilder()
            .setRange(0)
            .setTerm(term)
            .setLast(true)
            .setEntries(raw)
            .setCrc32C(HandOffShipments.crc32c(raw))
            .build();
    assertThrows(WireDecodeException.class, () -> new HandOffShipments.Assembly().add(c));
  }

  private static HandOffEntries entries(HandOffEntry... e) {
    return HandOffEntries.newBuilder().addAllEntries(List.of(e)).build();
  }

  private static HandOffEntry entry(Key key, AcceptedValue v) {
    HandOffEntry.Builder b =
        HandOffEntry.newBuilder().setKey(ByteString.copyFrom(key.bytesUnsafe()));
    if (v != null) {
      b.setChosen(WireValues.acceptedValue(v));
    }
    return b.build();
  }

  private static HandOffShipment shipment(SplittableRandom random, int keys) {
    TreeMap<Key, AcceptedValue> sorted = new TreeMap<>();
    while (sorted.size() < keys) {
      byte[] k = new byte[1 + random.nextInt(20)];
      random.nextBytes(k);
      sorted.put(Key.wrap(k), random.nextInt(5) == 0 ? null : value(random));
    }
    List<HandOffShipment.Entry> entries = new ArrayList<>();
    sorted.forEach((k, v) -> entries.add(new HandOffShipment.Entry(k, v)));
    return new HandOffShipment(1 + random.nextInt(7), 1 + random.nextInt(1000), entries);
  }

  private static AcceptedValue value(SplittableRandom random) {
    byte[] v = new byte[random.nextInt(40)];
    random.nextBytes(v);
    boolean delete = random.nextInt(6) == 0;
    return AcceptedValue.of(
        1 + random.nextInt(1000),
        1 + random.nextInt(1_000_000),
        new Ballot(1 + random.nextInt(50), random.nextInt(5), random.nextInt(3)),
        delete ? CellKind.DELETE_FOR_CELL : CellKind.LIVE,
        delete ? new byte[0] : v,
        true);
  }
}
