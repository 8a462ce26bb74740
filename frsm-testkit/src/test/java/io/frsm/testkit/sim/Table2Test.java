package io.frsm.testkit.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.Key;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The paper's Table 2 as invariants (n = 3, no faults): round trips, messages and follower store
 * reads/writes per operation. One-way delay is 1 ms and persists take no time, so latency / 2 ms is
 * the RTT count. Counts are taken when the client gets its reply; the asynchronous commit that
 * follows is counted separately (it is not in Table 2).
 */
class Table2Test {
  private static final long DELAY_MICROS = 1_000;
  private static final Key KEY = Key.of("k".getBytes(StandardCharsets.US_ASCII));

  private Simulation sim;

  /** What one operation cost, measured at its reply. */
  private record Cost(
      Outcome outcome, double rtts, long messages, long[] followerReads, long[] followerWrites) {}

  @BeforeEach
  void setUp() {
    sim = new Simulation(1, FaultMix.exact(3, DELAY_MICROS, 0), Simulation.simConfig(3), 1_000_000);
  }

  private Cost run(int node, Operation op) {
    sim.runUntilQuiet(sim.nowNanos() + 10_000_000_000L);
    long start = sim.nowNanos();
    long messagesBefore = sim.messagesTotal() - sim.messages(Message.Commit.class);
    long[] reads = new long[3];
    long[] writes = new long[3];
    for (int i = 0; i < 3; i++) {
      reads[i] = sim.storeReads(i);
      writes[i] = sim.storeWrites(i);
    }
    Cost[] cost = {null};
    sim.submit(
        node,
        op,
        o -> {
          long[] r = new long[3];
          long[] w = new long[3];
          for (int i = 0; i < 3; i++) {
            r[i] = sim.storeReads(i) - reads[i];
            w[i] = sim.storeWrites(i) - writes[i];
          }
          long messages = sim.messagesTotal() - sim.messages(Message.Commit.class) - messagesBefore;
          double rtts = (sim.nowNanos() - start) / (2.0 * DELAY_MICROS * 1000);
          cost[0] = new Cost(o, rtts, messages, r, w);
        });
    sim.runUntil(() -> cost[0] != null, sim.nowNanos() + 10_000_000_000L, "reply");
    return cost[0];
  }

  private Version create() {
    Cost c = run(0, new Operation.Create(KEY, bytes("v0")));
    return assertInstanceOf(Outcome.Written.class, c.outcome).version();
  }

  @Test
  void warmCas_oneRoundTrip_fourMessages_followerOneReadOneWrite() {
    Version v0 = create(); // leaves node 0 warm: its last round got q acks
    Cost cas = run(0, new Operation.Cas(KEY, v0, bytes("v1")));
    assertEquals(new Outcome.Written(v0.next()), cas.outcome);
    assertEquals(1.0, cas.rtts);
    assertEquals(4, cas.messages); // accept to self + 1 follower, 2 acks
    assertEquals(1, cas.followerReads[1]);
    assertEquals(1, cas.followerWrites[1]);
    assertEquals(0, cas.followerReads[2] + cas.followerWrites[2]); // not in the accept quorum
  }

  @Test
  void coldCas_twoRoundTrips_eightMessages_followerTwoReadsTwoWrites() {
    Version v0 = create();
    Cost other = run(1, new Operation.Cas(KEY, v0, bytes("v1"))); // node 1 takes the key over
    assertInstanceOf(Outcome.Written.class, other.outcome);
    Cost cas = run(0, new Operation.Cas(KEY, v0.next(), bytes("v2")));
    assertEquals(new Outcome.Written(v0.next().next()), cas.outcome);
    assertEquals(2.0, cas.rtts);
    assertEquals(8, cas.messages);
    assertEquals(2, cas.followerReads[1]);
    assertEquals(2, cas.followerWrites[1]);
  }

  @Test
  void quorumRead_oneRoundTrip_sixMessages_followerOneReadNoWrite() {
    create();
    Cost get = run(0, new Operation.Get(KEY));
    Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, get.outcome);
    assertEquals("v0", new String(r.value().orElseThrow().value(), StandardCharsets.US_ASCII));
    assertEquals(1.0, get.rtts);
    assertEquals(6, get.messages);
    for (int follower = 1; follower <= 2; follower++) {
      assertEquals(1, get.followerReads[follower]);
      assertEquals(0, get.followerWrites[follower]);
    }
  }

  @Test
  void mutatingQuorumRead_threeRoundTrips_fourteenMessages_followerThreeReadsTwoWrites() {
    Version v0 = create();
    // Node 1's CAS reaches only its own acceptor: an accepted value not on a quorum, not chosen.
    sim.setFilter((from, to, m) -> from == 1 && to != 1 && m instanceof Message.Accept);
    Cost lost = run(1, new Operation.Cas(KEY, v0, bytes("v1")));
    assertInstanceOf(Outcome.Unknown.class, lost.outcome);
    sim.setFilter((from, to, m) -> false);

    Cost get = run(0, new Operation.Get(KEY));
    Outcome.ReadResult r = assertInstanceOf(Outcome.ReadResult.class, get.outcome);
    // The read settles node 1's leftover and quenches it at the next timestamp.
    assertEquals("v1", new String(r.value().orElseThrow().value(), StandardCharsets.US_ASCII));
    assertEquals(v0.next().next(), r.value().orElseThrow().version());
    assertEquals(3.0, get.rtts);
    assertEquals(14, get.messages); // read 2n + prepare 2q + accept 2q
    assertEquals(3, get.followerReads[1]);
    assertEquals(2, get.followerWrites[1]);
  }

  /**
   * A commit of a live value is written as an unlogged hint without reading the cell first: one
   * write, no read, no commit-log record (PROTOCOL.md "Commits are hints"). Node 2 was outside the
   * CAS's accept quorum, so its hint brings the value itself.
   */
  @Test
  void commitAfterChosen_isOneHintPerReplica_withoutARead() {
    Version v0 = create();
    Cost cas = run(0, new Operation.Cas(KEY, v0, bytes("v1")));
    assertInstanceOf(Outcome.Written.class, cas.outcome);
    long readsBefore = sim.storeReads(2);
    long writesBefore = sim.storeWrites(2);
    long commitsBefore = sim.messages(Message.Commit.class);
    sim.runUntilQuiet(sim.nowNanos() + 1_000_000_000L);
    assertEquals(0, sim.messages(Message.Commit.class) - commitsBefore); // sent with the reply
    assertEquals(readsBefore, sim.storeReads(2));
    assertEquals(writesBefore + 1, sim.storeWrites(2));
    assertEquals(
        "v1",
        new String(
            sim.durableCell(2, KEY).accepted().valueCopy(), StandardCharsets.US_ASCII)); // visible
    assertTrue(sim.messages(Message.Commit.class) >= 6); // n per chosen value: create and CAS
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }
}
