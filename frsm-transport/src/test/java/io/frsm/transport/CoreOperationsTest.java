package io.frsm.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.api.Versioned;
import io.frsm.cell.Key;
import io.frsm.client.RequestLimits;
import io.frsm.client.transport.ClientOperation;
import io.frsm.client.transport.ClientOutcome;
import io.frsm.client.transport.KeyBytes;
import io.frsm.client.transport.WireFormat;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.RangeTerm;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The client protocol's operations and outcomes map to the core's and back without loss, and the
 * constants the client duplicates so that it needs no core stay the core's.
 */
class CoreOperationsTest {
  private static final Key K = Key.of(new byte[] {'k', 1});
  private static final Version V = new Version(3, 4);
  private static final Versioned VALUE = new Versioned(new byte[] {9}, V);

  @Test
  void everyOperation_roundTrips() {
    List<Operation> ops =
        List.of(
            new Operation.Get(K),
            new Operation.Get(K, true),
            new Operation.Create(K, new byte[] {1}),
            new Operation.Cas(K, V, new byte[] {2}),
            new Operation.Delete(K, V),
            new Operation.Fence(K));
    for (Operation op : ops) {
      ClientOperation client = CoreOperations.toClient(op);
      assertEquals(op.mutates(), client.mutates(), op.toString());
      assertArrayEquals(K.toByteArray(), client.key().toByteArray());
      Operation back = CoreOperations.toCore(client);
      assertEquals(op.getClass(), back.getClass());
      assertEquals(K, back.key());
      assertEquals(CoreOperations.toClient(back), client, "records of shared arrays: " + op);
      if (op instanceof Operation.Get get) {
        assertEquals(get, back, "a quorum read stays one, both ways");
      }
    }
  }

  @Test
  void everyOutcome_roundTrips() {
    List<Outcome> outcomes =
        List.of(
            new Outcome.ReadResult(Optional.of(VALUE)),
            new Outcome.ReadResult(Optional.empty()),
            new Outcome.Written(V),
            new Outcome.Deleted(V),
            new Outcome.Exists(VALUE),
            new Outcome.Mismatch(V, Optional.of(VALUE)),
            new Outcome.Unknown("timed out"),
            new Outcome.NotExecuted("no quorum"));
    for (Outcome outcome : outcomes) {
      assertEquals(outcome, CoreOperations.toCore(CoreOperations.toClient(outcome)));
    }
  }

  @Test
  void rangeMoved_neverLeavesTheNode() {
    ClientOutcome client = CoreOperations.toClient(new Outcome.NotExecuted("moved", true));
    assertEquals(new ClientOutcome.NotExecuted("moved"), client);
  }

  @Test
  void clientBound_isTheCoresInputBound() {
    assertEquals(InputBounds.MAX_NUMBER, WireFormat.MAX_NUMBER);
  }

  @Test
  void clientReservedPrefix_isTheCoresRangeTermPrefix() {
    byte[] prefix = RequestLimits.RESERVED_KEY_PREFIX;
    Key termKey = RangeTerm.cellKey(7);
    assertTrue(KeyBytes.wrap(termKey.toByteArray()).startsWith(prefix));
    assertTrue(RangeTerm.isReserved(Key.wrap(prefix.clone())));
    byte[] shorter = Arrays.copyOf(prefix, prefix.length - 1);
    assertFalse(RangeTerm.isReserved(Key.wrap(shorter)), "the prefix is no longer than the core's");
  }
}
