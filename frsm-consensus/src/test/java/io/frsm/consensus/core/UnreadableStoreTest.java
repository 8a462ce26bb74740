package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A replica whose store cannot read a key fails locally (see {@link CellStoreException}). */
class UnreadableStoreTest {
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final Now NOW = new Now(1_000_000, 0);

  private final NodeCore node =
      new NodeCore(
          0,
          1,
          CoreConfig.defaults(List.of(0, 1, 2)),
          key -> {
            throw new CellStoreException("disk says no", new IOException("quarantined"));
          },
          bound -> 0);

  @Test
  void acceptor_withUnreadableKey_staysSilent_likeACrashedReplica() {
    RoundId round = new RoundId(1, 1, 0);
    List<Effect> effects =
        node.step(
            NOW, new Input.Receive(1, new Message.Prepare(K, round, new Ballot(5_000_000, 1, 1))));
    assertEquals(List.of(), effects);
    assertEquals(0, node.keysAwaitingPersist());
  }

  @Test
  void coordinator_withUnreadableLocalCell_runsTheOperationCold() {
    List<Effect> effects =
        node.step(
            NOW,
            new Input.ClientRequest(
                7, new Operation.Cas(K, new Version(1, 0), new byte[] {1}), 1_000_000));
    assertTrue(!effects.isEmpty());
    for (Effect e : effects) {
      assertInstanceOf(Message.Prepare.class, assertInstanceOf(Effect.Send.class, e).message());
    }
  }
}
