package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.frsm.cell.Cell;
import io.frsm.cell.CellMerge;
import io.frsm.cell.Key;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A replica acknowledges a range's term only once the term is durable (docs/PROTOCOL.md rule 4):
 * also when the holder resends its {@code TermPersist} while the first one's term cell is still on
 * its way to disk. The resend meets the term already raised in memory, so nothing of its own is
 * written; an ack sent at once would let the holder count a replica that a crash can still turn
 * back to the older term.
 */
class TermPersistResendTest {
  private static final Key TERM_KEY = RangeTerm.cellKey(0);
  private static final List<Integer> NODES = List.of(0, 1, 2);

  private final Map<Key, Cell> durable = new HashMap<>();
  private final Now now = new Now(1_000_000, 0);

  private NodeCore replica(boolean handOff) {
    CoreConfig config =
        CoreConfig.builder(Placement.single(NODES))
            .leases(LeaseConfig.defaults())
            .modes(CoreConfig.Modes.DEFAULT.withHandOff(handOff))
            .sabotage(Set.of())
            .build();
    return new NodeCore(0, 1, config, durable::get, bound -> 0);
  }

  @ParameterizedTest(name = "floor {0}")
  @ValueSource(longs = {0, 500})
  void aResend_whileTheFirstTermCellIsInFlight_isAcknowledgedOnlyOnceItIsDurable(long floor) {
    NodeCore replica = replica(floor > 0);
    Message first = new Message.TermPersist(TERM_KEY, new RoundId(1, 4, 10), 0, 3, 0, floor);
    List<Effect> fromFirst = replica.step(now, new Input.Receive(1, first));
    List<Effect.Persist> persists = persists(fromFirst);
    assertEquals(1, persists.size(), "the term cell written: " + fromFirst);
    assertEquals(List.of(), acks(fromFirst), "no ack before the term is durable");

    // The holder's round timed out (a slow disk here): it resends under a new round id.
    Message resend = new Message.TermPersist(TERM_KEY, new RoundId(1, 4, 11), 0, 3, 0, floor);
    List<Effect> fromResend = new ArrayList<>(replica.step(now, new Input.Receive(1, resend)));
    assertEquals(List.of(), acks(fromResend), "the resend is not acked before the term is durable");

    // The term cell becomes durable: both are answered now, and only now.
    Effect.Persist p = persists.get(0);
    durable.merge(p.delta().key(), p.delta(), CellMerge::merge);
    List<Effect> afterDone =
        new ArrayList<>(replica.step(now, new Input.PersistDone(p.persistId())));
    for (Effect.Persist more : persists(afterDone)) {
      durable.merge(more.delta().key(), more.delta(), CellMerge::merge);
      afterDone.addAll(replica.step(now, new Input.PersistDone(more.persistId())));
    }
    List<Message.TermPersisted> acks = acks(afterDone);
    assertEquals(2, acks.size(), "both answered once durable: " + afterDone);
    assertEquals(3, RangeTerm.termOf(durable.get(TERM_KEY)));
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

  private static List<Message.TermPersisted> acks(List<Effect> effects) {
    List<Message.TermPersisted> out = new ArrayList<>();
    for (Effect e : effects) {
      if (e instanceof Effect.Send s && s.message() instanceof Message.TermPersisted tp) {
        out.add(assertInstanceOf(Message.TermPersisted.class, tp));
      }
    }
    return out;
  }
}
