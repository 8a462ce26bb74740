package io.frsm.lsm.manifest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.lsm.CorruptionException;
import io.frsm.lsm.io.FaultyFileSystem;
import io.frsm.lsm.io.NioFileSystem;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestStoreTest {
  private static final Path DIR = Path.of("/data");

  private static TableEntry table(long gen, boolean segregated) {
    return new TableEntry(gen, segregated, false, -gen, gen, 1000 * gen, 10 * gen);
  }

  @Test
  void emptyDirectory_loadsEmptyManifest() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    assertEquals(Manifest.empty(), new ManifestStore(fs, DIR).load());
  }

  @Test
  void writtenManifest_survivesCrash() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    ManifestStore store = new ManifestStore(fs, DIR);
    Manifest m = Manifest.empty().apply(List.of(), List.of(table(1, false), table(2, true)));
    store.write(m);
    fs.crash();
    assertEquals(m, new ManifestStore(fs, DIR).load());
  }

  @Test
  void crashBeforeRename_keepsPreviousManifest() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    ManifestStore store = new ManifestStore(fs, DIR);
    Manifest first = Manifest.empty().apply(List.of(), List.of(table(1, false)));
    store.write(first);
    // A second write whose rename never became durable: the directory sync is what commits it.
    Manifest second = first.apply(List.of(1L), List.of(table(2, false)));
    fs.setFailSyncs(true);
    assertThrows(java.io.IOException.class, () -> store.write(second));
    fs.setFailSyncs(false);
    fs.crash();
    assertEquals(first, new ManifestStore(fs, DIR).load());
  }

  @Test
  void leftoverTemporaryManifest_isDeleted() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    fs.createDirectories(DIR);
    try (var out = fs.create(DIR.resolve("MANIFEST-00000000000000000009.tmp"))) {
      out.write(java.nio.ByteBuffer.wrap(new byte[] {1, 2, 3}));
    }
    assertEquals(Manifest.empty(), new ManifestStore(fs, DIR).load());
    assertTrue(fs.list(DIR).isEmpty());
  }

  @Test
  void flippedByte_isReportedWithFileAndOffset() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    ManifestStore store = new ManifestStore(fs, DIR);
    store.write(Manifest.empty().apply(List.of(), List.of(table(1, false))));
    Path file = fs.list(DIR).get(0);
    fs.flipByte(file, 20);
    CorruptionException e = assertThrows(CorruptionException.class, store::load);
    assertEquals(file.toAbsolutePath(), e.file().toAbsolutePath());
    assertTrue(e.getMessage().contains("checksum"), e.getMessage());
  }

  @Test
  void olderManifests_areRemovedAfterANewOneIsDurable(@TempDir Path tmp) throws Exception {
    ManifestStore store = new ManifestStore(NioFileSystem.INSTANCE, tmp);
    Manifest m = Manifest.empty();
    for (int i = 1; i <= 5; i++) {
      m = m.apply(List.of(), List.of(table(i, false)));
      store.write(m);
    }
    assertEquals(1, NioFileSystem.INSTANCE.list(tmp).size());
    assertEquals(m, new ManifestStore(NioFileSystem.INSTANCE, tmp).load());
  }

  @Test
  void encoding_isFrozen() {
    Manifest m = new Manifest(3, 8, List.of(new TableEntry(7, true, false, -1, 1, 4096, 12)));
    assertEquals(
        "46524d46"
            + "0001" // magic, version
            + "0000000000000003"
            + "0000000000000008"
            + "00000001" // seq, nextGen, count
            + "0000000000000007"
            + "01" // generation, flags
            + "ffffffffffffffff"
            + "0000000000000001" // tokens
            + "0000000000001000"
            + "000000000000000c" // size, cells
            + "1a2738de", // CRC32C
        HexFormat.of().formatHex(ManifestStore.encode(m)));
  }

  @Test
  void apply_rejectsRemovingATableThatIsNotLive() {
    Manifest m = Manifest.empty().apply(List.of(), List.of(table(1, false)));
    assertThrows(IllegalStateException.class, () -> m.apply(List.of(5L), List.of()));
    assertFalse(m.apply(List.of(1L), List.of()).tables().iterator().hasNext());
  }

  private static TableEntry withIntervals(long gen) {
    return new TableEntry(
        gen,
        false,
        false,
        -100,
        100,
        4096,
        12,
        List.of(new TokenInterval(-100, -50), new TokenInterval(7, 9)));
  }

  @Test
  void quarantinedIntervals_roundTrip_asVersion2_andSurviveACrash() throws Exception {
    FaultyFileSystem fs = new FaultyFileSystem();
    ManifestStore store = new ManifestStore(fs, DIR);
    Manifest m = Manifest.empty().apply(List.of(), List.of(table(1, false), withIntervals(2)));
    store.write(m);
    fs.crash();
    assertEquals(m, new ManifestStore(fs, DIR).load());
    byte[] bytes = ManifestStore.encode(m);
    assertEquals(2, ((bytes[4] & 0xff) << 8) | (bytes[5] & 0xff), "format version");
  }

  @Test
  void encodingWithIntervals_isFrozen() {
    Manifest m =
        new Manifest(
            3,
            8,
            List.of(
                new TableEntry(
                    7, false, false, -1, 1, 4096, 12, List.of(new TokenInterval(0, 1)))));
    assertEquals(
        "46524d46"
            + "0002" // magic, version 2
            + "0000000000000003"
            + "0000000000000008"
            + "00000001" // seq, nextGen, count
            + "0000000000000007"
            + "04" // generation, flags: intervals follow
            + "ffffffffffffffff"
            + "0000000000000001" // tokens
            + "0000000000001000"
            + "000000000000000c" // size, cells
            + "0001" // one interval
            + "0000000000000000"
            + "0000000000000001" // [0, 1]
            + CRC_OF_FROZEN_V2,
        HexFormat.of().formatHex(ManifestStore.encode(m)));
  }

  private static final String CRC_OF_FROZEN_V2 = "d3f8b8a9";

  @Test
  void intervalFlagInAVersion1Manifest_isRefused() throws Exception {
    Manifest m = Manifest.empty().apply(List.of(), List.of(withIntervals(2)));
    byte[] bytes = ManifestStore.encode(m);
    bytes[5] = 1; // claim version 1: the interval flag is unknown there
    CorruptionException e =
        assertThrows(CorruptionException.class, () -> ManifestStore.decode(DIR, withCrc(bytes)));
    assertTrue(e.getMessage().contains("flags"), e.getMessage());
  }

  @Test
  void hostileBytesWithAValidChecksum_areRefusedCleanly() {
    Manifest m = Manifest.empty().apply(List.of(), List.of(table(1, true), withIntervals(2)));
    byte[] good = ManifestStore.encode(m);
    java.util.Random random = new java.util.Random(23);
    int refused = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = good.clone();
      int flips = 1 + random.nextInt(3);
      for (int f = 0; f < flips; f++) {
        bytes[6 + random.nextInt(bytes.length - 10)] = (byte) random.nextInt(256);
      }
      if (random.nextInt(4) == 0) {
        bytes = java.util.Arrays.copyOf(bytes, 4 + random.nextInt(bytes.length - 4));
      }
      try {
        ManifestStore.decode(DIR, withCrc(bytes));
      } catch (CorruptionException expected) {
        refused++;
      }
    }
    assertTrue(refused > 10_000, "refused " + refused);
  }

  /** {@code bytes} with its last four bytes replaced by the CRC32C of the rest. */
  private static byte[] withCrc(byte[] bytes) {
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    crc.update(bytes, 0, bytes.length - 4);
    java.nio.ByteBuffer.wrap(bytes).putInt(bytes.length - 4, (int) crc.getValue());
    return bytes;
  }
}
