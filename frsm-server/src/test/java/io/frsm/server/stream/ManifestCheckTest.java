package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.transport.proto.StreamFile;
import io.frsm.transport.proto.StreamManifest;
import io.frsm.transport.stream.StreamWire;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManifestCheckTest {
  private static StreamFile file(String name, long length) {
    return StreamFile.newBuilder().setName(name).setLength(length).setCrc32C(7).build();
  }

  @Test
  void validManifest_isItsFiles() {
    StreamManifest m =
        StreamManifest.newBuilder()
            .setSnapshotId("0a1b")
            .addFiles(file("export-1-000001.db", 5))
            .build();
    assertEquals(List.of(new ManifestFile("export-1-000001.db", 5, 7)), ManifestCheck.files(m));
  }

  @Test
  void forgedManifests_areProtocolViolations() {
    List<StreamManifest> forged =
        List.of(
            StreamManifest.newBuilder().setSnapshotId("../x").build(),
            StreamManifest.newBuilder().setSnapshotId("").build(),
            StreamManifest.newBuilder()
                .setSnapshotId("ab")
                .addFiles(file("../../etc/passwd", 1))
                .build(),
            StreamManifest.newBuilder().setSnapshotId("ab").addFiles(file(".hidden", 1)).build(),
            StreamManifest.newBuilder().setSnapshotId("ab").addFiles(file("PROGRESS", 1)).build(),
            StreamManifest.newBuilder()
                .setSnapshotId("ab")
                .addFiles(file("PROGRESS.tmp", 1))
                .build(),
            StreamManifest.newBuilder()
                .setSnapshotId("ab")
                .addFiles(file("a.db", 1))
                .addFiles(file("a.db", 1))
                .build(),
            StreamManifest.newBuilder().setSnapshotId("ab").addFiles(file("a.db", -1)).build());
    for (StreamManifest m : forged) {
      assertThrows(ProtocolViolation.class, () -> ManifestCheck.files(m), m.toString());
    }
    StreamManifest.Builder many = StreamManifest.newBuilder().setSnapshotId("ab");
    for (int i = 0; i <= StreamWire.MAX_FILES; i++) {
      many.addFiles(file("f" + i, 1));
    }
    assertThrows(ProtocolViolation.class, () -> ManifestCheck.files(many.build()));
  }

  @Test
  void tooLittleSpace_namesTheDirectoryAndTheBytes() {
    List<ManifestFile> files =
        List.of(new ManifestFile("a", 1000, 1), new ManifestFile("b", 500, 1));
    ManifestCheck.requireSpace(files, new long[] {1000, 0}, Path.of("/d"), 2000, "copy");
    StreamException e =
        assertThrows(
            StreamException.class,
            () ->
                ManifestCheck.requireSpace(
                    files, new long[] {1000, 0}, Path.of("/d"), 1999, "copy"));
    assertEquals(
        "not enough disk space in /d: copy needs 2000 bytes (500 to stage, 1500 for the import),"
            + " 1999 are usable; nothing was imported",
        e.getMessage());
    List<ManifestFile> huge =
        List.of(new ManifestFile("a", Long.MAX_VALUE, 1), new ManifestFile("b", Long.MAX_VALUE, 1));
    assertTrue(
        assertThrows(
                StreamException.class,
                () ->
                    ManifestCheck.requireSpace(
                        huge, new long[2], Path.of("/d"), Long.MAX_VALUE - 1, "c"))
            .getMessage()
            .contains("needs " + Long.MAX_VALUE));
  }
}
