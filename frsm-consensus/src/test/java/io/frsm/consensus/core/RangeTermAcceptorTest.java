package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The acceptor's range-term rules (docs/DESIGN.md "Lease invariant" rule 4) through the core. */
class RangeTermAcceptorTest {
  private static final Key K = Key.of("k".getBytes(StandardCharsets.US_ASCII));
  private static final Key TERM_KEY = RangeTerm.cellKey(0);
  private static final RoundId R = new RoundId(1, 1, 0);
  private static final Now NOW = new Now(1_000_000, 0);
  private static final CoreConfig CONFIG =
      CoreConfig.builder(Placement.single(List.of(0, 1, 2))).leases(LeaseConfig.defaults()).build();

  private final Map<Key, Cell> durable = new HashMap<>();
  private NodeCore node = new NodeCore(0, 1, CONFIG, durable::get, bound -> 0);

  private List<Effect> receive(Message m) {
    return node.step(NOW, new Input.Receive(1, m));
  }

  private List<Effect> complete(Effect.Persist p) {
    durable.merge(p.delta().key(), p.delta(), CellMerge::merge);
    return node.step(NOW, new Input.PersistDone(p.persistId()));
  }

  private static List<Effect.Persist> persists(List<Effect> effects) {
    List<Effect.Persist> out = new ArrayList<>();
    for (Effect e : effects) {
      if (e instanceof Effect.Persist p) {
        out.add(p);
      }
    }
    return out;
  }

  private static Message sent(List<Effect> effects) {
    for (Effect e : effects) {
      if (e instanceof Effect.Send s) {
        return s.message();
      }
    }
    return null;
  }

  private static Message.Accept accept(long term) {
    AcceptedValue v = AcceptedValue.live(7, 1, new Ballot(9, 1, 1), new byte[] {1}, false);
    return new Message.Accept(K, R, v, term);
  }

  @Test
  void termAck_waitsForAnAcceptOfTheRangeAlreadyOnItsWayToDisk() {
    Effect.Persist acceptPersist = persists(receive(accept(1))).get(0);
    List<Effect> termEffects = receive(new Message.TermPersist(TERM_KEY, R, 0, 2));
    Effect.Persist termPersist = persists(termEffects).get(0);
    assertEquals(null, sent(termEffects));
    assertEquals(null, sent(complete(termPersist)), "the old-term accept is not durable yet");
    List<Effect> released = complete(acceptPersist);
    assertTrue(
        released.stream()
            .anyMatch(
                e -> e instanceof Effect.Send s && s.message() instanceof Message.TermPersisted),
        "acknowledged once the accept is durable: " + released);
  }

  @Test
  void prepareAndAcceptBelowThePersistedTerm_areRefused_evenAfterARestart() {
    complete(persists(receive(new Message.TermPersist(TERM_KEY, R, 0, 5))).get(0));
    assertInstanceOf(Message.StaleTerm.class, sent(receive(accept(4))));
    node = new NodeCore(0, 2, CONFIG, durable::get, bound -> 0);
    Message.StaleTerm stale =
        assertInstanceOf(
            Message.StaleTerm.class,
            sent(receive(new Message.Prepare(K, R, new Ballot(50, 1, 1), 3))));
    assertEquals(5, stale.term());
    assertEquals(1, persists(receive(accept(5))).size(), "the current term is accepted");
  }

  @Test
  void termPersistBelowTheKnownTerm_isRefused_andTermsNeverDecrease() {
    complete(persists(receive(new Message.TermPersist(TERM_KEY, R, 0, 5))).get(0));
    assertInstanceOf(
        Message.StaleTerm.class, sent(receive(new Message.TermPersist(TERM_KEY, R, 0, 3))));
    assertEquals(5, RangeTerm.termOf(durable.get(TERM_KEY)));
  }

  @Test
  void clientOperationOnAReservedKey_isRefused() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            node.step(
                NOW, new Input.ClientRequest(1, new Operation.Get(TERM_KEY), NOW.wallMicros())));
  }

  @Test
  void unreadableTermCell_silencesTheRange_neverStopsTheNode() {
    // A quarantined block can hold a range's term cell (issue 23): the acceptor cannot tell its
    // term, so it answers nothing for the range's prepares, accepts, term persists and listings,
    // like a crashed replica, and never throws out of the step (which would stop the node).
    NodeCore unreadable =
        new NodeCore(
            0,
            1,
            CONFIG,
            key -> {
              if (key.equals(TERM_KEY)) {
                throw new CellStoreException("quarantined", new java.io.IOException("fenced"));
              }
              return durable.get(key);
            },
            bound -> 0);
    for (Message m :
        List.of(
            accept(1),
            new Message.Prepare(K, R, new Ballot(5, 1, 1), 1),
            new Message.TermPersist(TERM_KEY, R, 0, 2))) {
      assertEquals(List.of(), unreadable.step(NOW, new Input.Receive(1, m)), m.toString());
    }
    assertEquals(0, unreadable.keysAwaitingPersist());
  }
}
