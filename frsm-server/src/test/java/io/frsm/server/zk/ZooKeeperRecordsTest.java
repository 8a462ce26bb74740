package io.frsm.server.zk;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.server.ring.NodeInfo;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Every record frsm reads from ZooKeeper, given forged, garbled and oversized bytes: each decoder
 * answers with its value or an {@link IllegalArgumentException} naming what is wrong — never
 * another exception (which would escape the callers' handling) and never a value a node cannot use
 * (a ring too wide to build, a term that cannot be bumped, a host that is no host). The random part
 * mutates valid records with a fixed seed per run (replay with -Dfrsm.zkrecords.seed=N).
 */
class ZooKeeperRecordsTest {
  private static final long SEED = Long.getLong("frsm.zkrecords.seed", 0x5EC24L);
  private static final int MUTATIONS = 5_000;

  private static final ClusterShape SHAPE =
      new ClusterShape(
          16,
          3,
          List.of(
              new ClusterShape.Member(1, "r1"),
              new ClusterShape.Member(2, "r2"),
              new ClusterShape.Member(3, "r3")),
          new ClusterTiming(Duration.ofSeconds(5), Duration.ofMillis(250)));

  @Test
  void clusterShape_refusesForgedValues() {
    for (String bad :
        new String[] {
          "",
          "v3",
          "v9|16|3|5000000|250000|1:a",
          "v3|2147483647|3|5000000|250000|1:a,2:b,3:c", // a ring no node could build
          "v3|4097|1|5000000|250000|1:a",
          "v3|0|1|5000000|250000|1:a",
          "v3|16|3|9223372036854775807|250000|1:a,2:b,3:c", // T that overflows in nanoseconds
          "v3|16|3|5000000|-1|1:a,2:b,3:c",
          "v3|16|3|5000000|250000|1:a,1:b,3:c",
          "v3|16|4|5000000|250000|1:a,2:b,3:c",
          "v3|16|3|5000000|250000|1:a b,2:b,3:c",
          "v3|16|3|5000000|250000|-1:a,2:b,3:c",
          "v3|16|1|5000000|250000|" + "1:a,".repeat(10_001),
          "v1|x|16",
        }) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> ClusterShape.decode(bad.getBytes(UTF_8)),
              bad.length() > 80 ? bad.substring(0, 80) : bad);
      assertTrue(e.getMessage().length() < 600, "the message quotes a bounded part of the data");
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> ClusterShape.decode(new byte[ClusterShape.MAX_BYTES + 1]));
    assertThrows(IllegalArgumentException.class, () -> ClusterShape.decode(null));
  }

  @Test
  void clusterShape_mutated_decodesOrIsRefused() {
    mutateAll(
        SHAPE.encode(),
        data -> {
          ClusterShape s = ClusterShape.decode(data);
          assertTrue(s.vnodes() >= 1 && s.vnodes() <= ClusterShape.MAX_VNODES, s.toString());
          return s;
        });
  }

  @Test
  void memberRecord_refusesForgedValues() {
    assertEquals(
        new NodeInfo(4, "10.0.0.4", 7400, 7500, "rack-4"),
        MembershipRegistry.decode(4, "10.0.0.4|7400|7500|rack-4".getBytes(UTF_8)));
    assertEquals(
        new NodeInfo(4, "fe80::1%eth0", 7400, 0, ""),
        MembershipRegistry.decode(4, "fe80::1%eth0|7400|0|".getBytes(UTF_8)));
    for (String bad :
        new String[] {
          "",
          "h|1|2",
          "h|1|2|r|x",
          "evil host|7400|7500|r",
          "h\n|7400|7500|r",
          "h|70000|7500|r",
          "h|-1|7500|r",
          "h|+80|7500|r",
          "h|7400|99999999999|r",
          "h|7400|7500|r r",
          "h|7400|7500|" + "r".repeat(65),
          "x".repeat(254) + "|7400|7500|r",
        }) {
      assertThrows(
          IllegalArgumentException.class,
          () -> MembershipRegistry.decode(4, bad.getBytes(UTF_8)),
          bad);
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> MembershipRegistry.decode(4, new byte[MembershipRegistry.MAX_RECORD_BYTES + 1]));
    for (String name : new String[] {"", "evil", "-1", "1e3", "+1", "0x10", "1234567890", " 1"}) {
      assertThrows(IllegalArgumentException.class, () -> MembershipRegistry.nodeId(name), name);
    }
    assertEquals(12, MembershipRegistry.nodeId("12"));
  }

  @Test
  void memberRecord_mutated_decodesOrIsRefused() {
    mutateAll(
        MembershipRegistry.encode(new NodeInfo(4, "node-4.example", 7400, 7500, "rack-4")),
        data -> MembershipRegistry.decode(4, data));
  }

  @Test
  void term_refusesForgedValues() {
    String path = "/frsm/c/ranges/0/term";
    assertEquals(Optional.empty(), RangeTermStore.decodeTerm(path, new byte[0]));
    long[] valid = RangeTermStore.decodeTerm(path, term(7, 2)).orElseThrow();
    assertEquals(7, valid[0]);
    assertEquals(2, valid[1]);
    for (int length : new int[] {1, 4, 8, 11, 13, 64}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> RangeTermStore.decodeTerm(path, new byte[length]));
      assertTrue(e.getMessage().contains(path), e.getMessage());
    }
    for (byte[] bad :
        List.of(term(0, 1), term(-5, 1), term(Long.MAX_VALUE, 1), term(Long.MIN_VALUE, 1))) {
      assertThrows(IllegalArgumentException.class, () -> RangeTermStore.decodeTerm(path, bad));
    }
    assertThrows(
        IllegalArgumentException.class, () -> RangeTermStore.decodeTerm(path, term(3, -1)));
  }

  @Test
  void term_mutated_decodesOrIsRefused() {
    mutateAll(
        term(41, 3),
        data -> {
          Optional<long[]> t = RangeTermStore.decodeTerm("/t", data);
          t.ifPresent(v -> assertTrue(v[0] >= 1 && v[0] < Long.MAX_VALUE && v[1] >= 0));
          return t;
        });
  }

  @Test
  void releaseMark_ofAnyOtherShape_marksNothing() {
    assertEquals(0, RangeTermStore.releasedTerm(new byte[0]));
    assertEquals(0, RangeTermStore.releasedTerm(new byte[12]));
    assertEquals(0, RangeTermStore.releasedTerm(new byte[14]));
    byte[] notReleased = ByteBuffer.allocate(13).putLong(5).putInt(1).put((byte) 2).array();
    assertEquals(0, RangeTermStore.releasedTerm(notReleased));
    byte[] released = ByteBuffer.allocate(13).putLong(5).putInt(1).put((byte) 1).array();
    assertEquals(5, RangeTermStore.releasedTerm(released));
    mutateAll(released, RangeTermStore::releasedTerm);
  }

  @Test
  void readyMarker_mutated_decodesOrIsRefused() {
    mutateAll(
        ReadyMarker.encode(Set.of(3, 17, 40)),
        data -> {
          Set<Integer> ranges = ReadyMarker.decode(data);
          assertTrue(ranges.stream().allMatch(r -> r >= 0), ranges.toString());
          return ranges;
        });
  }

  @Test
  void latchEntries_areOnlyZooKeepersSequencedNames() {
    assertTrue(RangeLatch.isEntry("_c_0f8e2a6e-1d7b-4e0a-9f1c-3f9f3f0e8a11-latch-0000000042"));
    assertTrue(RangeLatch.isEntry("latch-0000000000"));
    for (String stray :
        new String[] {
          "latch-", "x-latch-", "latch-1", "latch-00000000001", "latch-00000000a1", "x"
        }) {
      assertFalse(RangeLatch.isEntry(stray), stray);
    }
  }

  private static byte[] term(long term, int holder) {
    return ByteBuffer.allocate(12).putLong(term).putInt(holder).array();
  }

  /**
   * Decodes {@link #MUTATIONS} mutations of {@code valid} (bytes flipped, set to edge values,
   * inserted, dropped, duplicated; the record truncated or extended): each must decode or be
   * refused with an IllegalArgumentException. Returns how many decoded.
   */
  private static int mutateAll(byte[] valid, Function<byte[], ?> decoder) {
    SplittableRandom random = new SplittableRandom(SEED);
    int decoded = 0;
    for (int i = 0; i < MUTATIONS; i++) {
      byte[] data = mutate(valid, random);
      try {
        decoder.apply(data);
        decoded++;
      } catch (IllegalArgumentException refused) {
        assertTrue(refused.getMessage() != null && !refused.getMessage().isEmpty());
      } catch (RuntimeException | Error other) {
        throw new AssertionError(
            "seed "
                + SEED
                + ", mutation "
                + i
                + ": "
                + Arrays.toString(data)
                + " threw "
                + other
                + " instead of decoding or an IllegalArgumentException",
            other);
      }
    }
    return decoded;
  }

  private static final byte[] EDGES = {0, 1, '|', ',', ':', '-', '9', (byte) 0x7f, (byte) 0x80, -1};

  private static byte[] mutate(byte[] valid, SplittableRandom random) {
    List<Byte> b = new ArrayList<>();
    for (byte x : valid) {
      b.add(x);
    }
    int edits = 1 + random.nextInt(4);
    for (int e = 0; e < edits; e++) {
      int at = b.isEmpty() ? 0 : random.nextInt(b.size());
      switch (random.nextInt(7)) {
        case 0 -> {
          if (!b.isEmpty()) {
            b.set(at, (byte) random.nextInt(256));
          }
        }
        case 1 -> {
          if (!b.isEmpty()) {
            b.set(at, EDGES[random.nextInt(EDGES.length)]);
          }
        }
        case 2 -> b.add(at, (byte) random.nextInt(256));
        case 3 -> {
          if (!b.isEmpty()) {
            b.remove(at);
          }
        }
        case 4 -> {
          if (!b.isEmpty()) {
            b.add(at, b.get(at));
          }
        }
        case 5 -> b.subList(at, b.size()).clear();
        default -> {
          int n = random.nextInt(24);
          for (int k = 0; k < n; k++) {
            b.add((byte) (random.nextBoolean() ? '9' : random.nextInt(256)));
          }
        }
      }
    }
    byte[] out = new byte[b.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = b.get(i);
    }
    return out;
  }
}
