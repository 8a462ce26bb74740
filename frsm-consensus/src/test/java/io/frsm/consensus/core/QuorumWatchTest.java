package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.cell.Ballot;
import io.frsm.cell.Cell;
import io.frsm.cell.Key;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The quorum watch (docs/PROTOCOL.md "Step-down and the quorum watch") through {@link
 * NodeCore#step}: node 0 of replicas {0, 1, 2}, two ranges, the watch on with {@code
 * unreachableAfter} = 1 s, ticks every 10 ms.
 */
class QuorumWatchTest {
  private static final long MS = 1_000_000;
  private static final Duration UNREACHABLE_AFTER = Duration.ofSeconds(1);
  private static final Placement TWO_RANGES = Placement.splitAt(List.of(0L), List.of(0, 1, 2));

  private final Map<Key, Cell> durable = new HashMap<>();
  private final NodeCore node =
      new NodeCore(0, 1, CoreConfig.defaults(TWO_RANGES), durable::get, bound -> 0);
  private long monoNanos;

  /** Every effect of the ticks from now until {@code untilMs}, 10 ms apart. */
  private List<Effect> tickUntil(long untilMs, int... answering) {
    List<Effect> out = new ArrayList<>();
    while (monoNanos < untilMs * MS) {
      monoNanos += 10 * MS;
      List<Effect> effects = node.step(now(), new Input.Tick());
      out.addAll(effects);
      for (Effect e : effects) {
        if (e instanceof Effect.Send s && s.message() instanceof Message.Read probe) {
          for (int peer : answering) {
            if (peer == s.to()) {
              node.step(now(), new Input.Receive(peer, readReply(probe)));
            }
          }
        }
      }
    }
    return out;
  }

  private Now now() {
    return new Now(1_000_000 + monoNanos / 1_000, monoNanos);
  }

  private static Message.ReadReply readReply(Message.Read probe) {
    return new Message.ReadReply(probe.key(), probe.round(), Ballot.NONE, null);
  }

  private static List<Effect.QuorumReachability> reports(List<Effect> effects) {
    return effects.stream()
        .filter(Effect.QuorumReachability.class::isInstance)
        .map(Effect.QuorumReachability.class::cast)
        .toList();
  }

  private static List<Effect.Send> probes(List<Effect> effects) {
    return effects.stream()
        .filter(e -> e instanceof Effect.Send s && s.message() instanceof Message.Read)
        .map(Effect.Send.class::cast)
        .toList();
  }

  @Test
  void withoutTheWatch_anIdleCoreSendsAndReportsNothing() {
    assertEquals(List.of(), tickUntil(5_000));
  }

  @Test
  void answeredProbes_keepEveryQuorumReachable_andGoToOwnedRangesTermCells() {
    node.watchQuorums(UNREACHABLE_AFTER, range -> true);
    List<Effect> effects = tickUntil(10_000, 1, 2);
    assertEquals(List.of(), reports(effects));
    List<Effect.Send> probes = probes(effects);
    // A peer that replies is probed once per quarter of unreachableAfter, no more.
    assertTrue(probes.size() >= 2 * 38 && probes.size() <= 2 * 41, "probes: " + probes.size());
    for (Effect.Send probe : probes) {
      assertEquals(RangeTerm.cellKey(0), probe.message().key());
    }
  }

  @Test
  void silentPeers_makeTheQuorumUnreachable_afterUnreachableAfter_andOneReplyBringsItBack() {
    node.watchQuorums(UNREACHABLE_AFTER, range -> range == 1);
    List<Effect> effects = tickUntil(990);
    assertEquals(List.of(), reports(effects), "inside unreachableAfter");
    effects = tickUntil(1_020);
    assertEquals(List.of(new Effect.QuorumReachability(1, false)), reports(effects));
    for (Effect.Send probe : probes(effects)) {
      assertEquals(RangeTerm.cellKey(1), probe.message().key(), "only owned ranges' cells");
    }
    assertEquals(List.of(), reports(tickUntil(5_000)), "reported once");
    // Requests of a peer prove nothing about this node's messages reaching it.
    Key k = Key.of(new byte[] {7});
    node.step(now(), new Input.Receive(1, new Message.Read(k, new RoundId(1, 1, 0))));
    assertEquals(List.of(), reports(tickUntil(5_100)));
    node.step(now(), new Input.Receive(2, readReply(new Message.Read(k, new RoundId(0, 1, 3)))));
    assertEquals(List.of(new Effect.QuorumReachability(1, true)), reports(tickUntil(5_200, 2)));
  }

  @Test
  void oneSilentPeerOfThree_leavesTheQuorumReachable() {
    node.watchQuorums(UNREACHABLE_AFTER, range -> true);
    assertEquals(List.of(), reports(tickUntil(10_000, 2)));
  }

  @Test
  void aPauseOfThisNode_isNotCountedAsPeersSilence() {
    node.watchQuorums(UNREACHABLE_AFTER, range -> true);
    tickUntil(100); // probes out, unanswered
    monoNanos += 3_000 * MS; // this core did not run for 3 s
    List<Effect> afterPause = node.step(now(), new Input.Tick());
    assertEquals(List.of(), reports(afterPause));
    // Still silent a full unreachableAfter of running time later: now it counts.
    assertEquals(
        List.of(new Effect.QuorumReachability(0, false), new Effect.QuorumReachability(1, false)),
        reports(tickUntil(4_200)));
  }

  @Test
  void aProbe_isAnsweredFromTheTermCell_withoutAWrite() {
    Message.Read probe = new Message.Read(RangeTerm.cellKey(0), new RoundId(1, 1, 9));
    List<Effect> effects = node.step(now(), new Input.Receive(1, probe));
    assertEquals(1, effects.size(), effects.toString());
    Effect.Send reply = (Effect.Send) effects.get(0);
    assertEquals(1, reply.to());
    assertTrue(reply.message() instanceof Message.ReadReply, reply.toString());
  }

  @Test
  void watchQuorums_onlyBeforeTheFirstStep() {
    node.step(now(), new Input.Tick());
    assertThrows(
        IllegalStateException.class, () -> node.watchQuorums(UNREACHABLE_AFTER, range -> true));
  }
}
