package io.frsm.server.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkLedgerTest {
  private static final int CRC = 0x1234;
  private static final List<ManifestFile> FILES =
      List.of(
          new ManifestFile("a.db", 250, 1),
          new ManifestFile("empty.db", 0, 0),
          new ManifestFile("b.db", 100, 2));

  private static ChunkLedger ledger(long[] verified) {
    return new ChunkLedger(FILES, verified, 100, 2);
  }

  @Test
  void chunks_coverEveryFileInOrder_cutAtTheFileEnd_skippingEmptyFiles() {
    ChunkLedger l = ledger(new long[3]);
    assertEquals(new ChunkLedger.Request(0, 0, 100), l.next());
    assertEquals(new ChunkLedger.Request(0, 100, 100), l.next());
    assertEquals(new ChunkLedger.Request(0, 200, 50), l.next());
    assertEquals(new ChunkLedger.Request(2, 0, 100), l.next());
    assertNull(l.next());
    assertEquals(4, l.outstanding());
  }

  @Test
  void resume_startsAtEachFilesVerifiedOffset() {
    ChunkLedger l = ledger(new long[] {230, 0, 100});
    assertTrue(l.fileComplete(2));
    assertEquals(new ChunkLedger.Request(0, 230, 20), l.next());
    assertNull(l.next());
    assertEquals(ChunkLedger.Verdict.WRITE, l.accept(0, 230, 20, CRC, CRC));
    l.written(0, 230, 20);
    assertTrue(l.complete());
  }

  @Test
  void checksumMismatch_isAskedAgain_andThePrefixWaitsForIt() {
    ChunkLedger l = ledger(new long[3]);
    l.next();
    l.next();
    assertEquals(ChunkLedger.Verdict.RESEND, l.accept(0, 0, 100, CRC, CRC + 1));
    assertEquals(ChunkLedger.Verdict.WRITE, l.accept(0, 100, 100, CRC, CRC));
    l.written(0, 100, 100);
    assertArrayEquals(new long[] {0, 0, 0}, l.verifiedOffsets(), "a gap at 0: nothing verified");
    assertEquals(new ChunkLedger.Request(0, 0, 100), l.next(), "the damaged chunk first");
    assertEquals(ChunkLedger.Verdict.WRITE, l.accept(0, 0, 100, CRC, CRC));
    l.written(0, 0, 100);
    assertArrayEquals(new long[] {200, 0, 0}, l.verifiedOffsets());
    assertEquals(1, l.chunkRetries());
  }

  @Test
  void truncatedChunk_isAskedAgain() {
    ChunkLedger l = ledger(new long[3]);
    l.next();
    assertEquals(ChunkLedger.Verdict.RESEND, l.accept(0, 0, 99, CRC, CRC));
    assertEquals(new ChunkLedger.Request(0, 0, 100), l.next());
  }

  @Test
  void chunkFailingMoreThanTheRetryLimit_failsTheCopy() {
    ChunkLedger l = ledger(new long[3]);
    for (int i = 0; i < 2; i++) {
      l.next();
      assertEquals(ChunkLedger.Verdict.RESEND, l.accept(0, 0, 100, CRC, 0));
    }
    l.next();
    StreamException e = assertThrows(StreamException.class, () -> l.accept(0, 0, 100, CRC, 0));
    assertFalse(e instanceof ProtocolViolation);
    assertTrue(
        e.getMessage().contains("a.db at offset 0 failed verification 3 times"), e.getMessage());
  }

  @Test
  void chunkAnsweringNoRequest_isAProtocolViolation() {
    ChunkLedger l = ledger(new long[3]);
    assertThrows(ProtocolViolation.class, () -> l.accept(0, 0, 100, CRC, CRC), "nothing asked");
    l.next();
    l.next();
    assertThrows(ProtocolViolation.class, () -> l.accept(0, 100, 100, CRC, CRC), "out of order");
    assertThrows(ProtocolViolation.class, () -> l.accept(7, 0, 100, CRC, CRC), "forged file");
  }

  @Test
  void restartFile_fetchesItAgainFromTheStart() {
    ChunkLedger l = new ChunkLedger(List.of(new ManifestFile("a.db", 100, 1)), new long[1], 100, 0);
    l.next();
    l.accept(0, 0, 100, CRC, CRC);
    l.written(0, 0, 100);
    assertTrue(l.complete());
    l.restartFile(0);
    assertFalse(l.complete());
    assertEquals(new ChunkLedger.Request(0, 0, 100), l.next());
  }

  @Test
  void verifiedOffsetOutsideTheFile_isRefused() {
    assertThrows(IllegalArgumentException.class, () -> ledger(new long[] {251, 0, 0}));
    assertThrows(IllegalArgumentException.class, () -> ledger(new long[] {-1, 0, 0}));
  }
}
