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
}
