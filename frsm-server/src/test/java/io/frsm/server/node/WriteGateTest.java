package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Key;
import io.frsm.cell.PurgeMark;
import io.frsm.consensus.core.Message;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class WriteGateTest {
  private static final long TIB = 1L << 40;

  private final AtomicBoolean spaceLow = new AtomicBoolean();
  private final AtomicBoolean flushesBehind = new AtomicBoolean();

  private final DiskSpaceGuard guard =
      new DiskSpaceGuard(
          4,
          List.of(Path.of("/frsm/data")),
          directory ->
              spaceLow.get()
                  ? new DiskSpaceGuard.Space(0, TIB)
                  : new DiskSpaceGuard.Space(TIB / 2, TIB),
          1024,
          0.01,
          System.getLogger(WriteGateTest.class.getName()));

  private final WriteGate gate = new WriteGate(4, guard, flushesBehind::get, () -> 3);

  @Test
  void open_whileSpaceSufficesAndFlushesKeepUp() {
    guard.check();
    assertFalse(gate.closed());
    assertNull(gate.refusal());
    assertEquals(0, gate.refusedForFlushes());
  }

  @Test
  void flushesBehind_closeTheGate_withAReasonNamingTheSetting_andItReopensByItself() {
    guard.check();
    flushesBehind.set(true);
    assertTrue(gate.closed());
    String refusal = gate.refusal();
    assertTrue(refusal.contains("node 4 refuses writes"), refusal);
    assertTrue(refusal.contains("3 memtables wait for their flush"), refusal);
    assertTrue(refusal.contains("lsm.maxFrozenMemtables"), refusal);
    assertEquals(1, gate.refusedForFlushes());
    assertEquals(0, guard.refusedMutations(), "not counted as a disk-space refusal");
    flushesBehind.set(false);
    assertFalse(gate.closed());
    assertNull(gate.refusal());
  }

  @Test
  void lowSpace_isTheReasonGiven_whenBothHold() {
    spaceLow.set(true);
    guard.check();
    flushesBehind.set(true);
    assertTrue(gate.refusal().contains("disk space low"));
    assertEquals(1, guard.refusedMutations());
    assertEquals(0, gate.refusedForFlushes());
  }

  @Test
  void theAcceptorIsSilent_whileFlushesAreBehind_butReadsPass() {
    guard.check();
    AcceptorSilence silence = new AcceptorSilence(gate::closed);
    Message.Purge purge = purge();
    assertFalse(silence.drops(purge, false));
    flushesBehind.set(true);
    assertTrue(silence.drops(purge, false));
    assertEquals(1, silence.dropped());
    flushesBehind.set(false);
    assertFalse(silence.drops(purge, false));
  }

  private static Message.Purge purge() {
    return new Message.Purge(
        Key.of("k".getBytes(StandardCharsets.US_ASCII)), new PurgeMark(1, 1, 1), 0);
  }
}
