package io.frsm.consensus.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import java.nio.charset.StandardCharsets;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link NodeCore#step} refuses numbers outside {@link InputBounds} before it changes anything, and
 * a key whose numbers were planted at the bound ends its operations instead of overflowing. The
 * regression tests are named after the probe that found the overflow (docs/PROTOCOL.md "Input
 * bounds").
 */
class InputBoundsTest {
  private static final long MAX = InputBounds.MAX_NUMBER;
  private static final Key K = key("k");
  private static final Key OTHER = key("other");
  private static final byte[] V = "v".getBytes(StandardCharsets.US_ASCII);
  private static final long ROUND_TIMEOUT_NANOS = CoreConfig.DEFAULT_BOUNDED_DELAY.toNanos();

  /**
   * A fresh cluster per test and per try (jqwik shares the instance between a property's tries).
   */
  private CoreCluster cluster = freshCluster();

  private static CoreCluster freshCluster() {
    return new CoreCluster(3, CoreConfig.defaults(List.of(0, 1, 2)));
  }

  private static Key key(String s) {
    return Key.of(s.getBytes(StandardCharsets.US_ASCII));
  }

  /** Runs {@code op} through node 0 until it is answered (the clocks move on past T if need be). */
  private Outcome run(Operation op) {
    long id = cluster.submit(0, op);
    for (int i = 0; i < 100 && cluster.outcome(id) == null; i++) {
      cluster.advance(ROUND_TIMEOUT_NANOS / 50);
    }
    assertNotNull(cluster.outcome(id), op + " was not answered");
    return cluster.outcome(id);
  }

  private Version create(Key key) {
    return assertInstanceOf(Outcome.Written.class, run(new Operation.Create(key, V))).version();
  }

  /** The cluster still serves: a create and a CAS of a fresh key, and a get of {@code K}. */
  private void stillServes() {
    Key fresh = key("fresh-" + System.nanoTime());
    Version v = create(fresh);
    assertInstanceOf(Outcome.Written.class, run(new Operation.Cas(fresh, v, V)));
    assertInstanceOf(Outcome.ReadResult.class, run(new Operation.Get(K)));
  }

  private RefusedInputException refused(int node, Input input) {
    return assertThrows(
        RefusedInputException.class, () -> cluster.core(node).step(cluster.now(), input));
  }

  // ---- regressions of the probe

  @Test
  void extremeInvocationTime_doesNotStopTheNode() {
    RefusedInputException e =
        refused(0, new Input.ClientRequest(1, new Operation.Fence(K), Long.MAX_VALUE));
    assertTrue(e.getMessage().contains("invoked_at_micros"), e.getMessage());
    assertEquals(0, cluster.core(0).activeOperations(), "nothing was queued");
    create(K);
    stillServes();
  }

  @Test
  void versionNearTheMaximum_isRefused_andTheKeyStaysUsable() {
    Version v = create(K);
    RefusedInputException e =
        refused(
            0,
            new Input.ClientRequest(
                1,
                new Operation.Cas(K, new Version(v.epoch(), MAX), V),
                cluster.now().wallMicros()));
    assertTrue(e.getMessage().contains("cas.expected.timestamp"), e.getMessage());
    e =
        refused(
            0,
            new Input.ClientRequest(
                1, new Operation.Delete(K, new Version(MAX + 1, 0)), cluster.now().wallMicros()));
    assertTrue(e.getMessage().contains("delete.expected.epoch"), e.getMessage());
    // Just below the bound is a valid CAS (a mismatch here), and the key goes on from its version.
    assertInstanceOf(
        Outcome.Mismatch.class, run(new Operation.Cas(K, new Version(v.epoch(), MAX - 1), V)));
    assertInstanceOf(Outcome.Written.class, run(new Operation.Cas(K, v, V)));
    stillServes();
  }

  @Test
  void valuePlantedAtTheMaximumTimestamp_endsAFenceNotExecuted_andOtherKeysServe() {
    Ballot b = new Ballot(cluster.now().wallMicros(), 1, 1);
    AcceptedValue planted = AcceptedValue.live(7, MAX, b, V, true);
    for (int node = 0; node < cluster.size(); node++) {
      cluster.input(node, new Input.Receive(1, new Message.Commit(K, planted)));
    }
    Outcome fence = run(new Operation.Fence(K));
    assertInstanceOf(Outcome.NotExecuted.class, fence, "the quench would land above the bound");
    assertTrue(fence.toString().contains("timestamp"), fence.toString());
    stillServes();
  }

  @Test
  void promisePlantedAtTheMaximumRound_endsACreateNotExecuted_andOtherKeysServe() {
    Ballot top = new Ballot(MAX, 1, 1);
    for (int node = 0; node < cluster.size(); node++) {
      cluster.input(node, new Input.Receive(1, new Message.Prepare(K, new RoundId(1, 1, 1), top)));
    }
    Outcome create = run(new Operation.Create(K, V));
    assertInstanceOf(Outcome.NotExecuted.class, create, "the next round would be above the bound");
    assertTrue(create.toString().contains("round"), create.toString());
    Key fresh = key("fresh");
    create(fresh);
  }

  @Test
  void peerRangeOutsideTheRing_isRefused() {
    Message.TermPersist outside =
        new Message.TermPersist(RangeTerm.cellKey(5), new RoundId(1, 1, 1), 5, 1);
    RefusedInputException e = refused(0, new Input.Receive(1, outside));
    assertTrue(e.getMessage().contains("term_persist.range"), e.getMessage());
  }

  // ---- properties: every value of a field is refused (before any change) or served

  @Provide
  Arbitrary<Long> extremes() {
    return Arbitraries.oneOf(
        Arbitraries.of(
            Long.MIN_VALUE, -1L, 0L, 1L, MAX - 1, MAX, MAX + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE),
        Arbitraries.longs());
  }

  @Property(tries = 300)
  void clientRequest_isRefusedOrAnswered(
      @ForAll("extremes") long tau,
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp) {
    Assume.that(epoch >= 0 && timestamp >= 0); // the Version record refuses negative ones itself
    cluster = freshCluster();
    Version v = create(K);
    Operation cas = new Operation.Cas(K, new Version(epoch, timestamp), V);
    Input request = new Input.ClientRequest(1_000_000, cas, tau);
    boolean outOfBounds = tau < 0 || tau > MAX || epoch > MAX || timestamp >= MAX;
    if (outOfBounds) {
      refused(0, request);
    } else {
      cluster.input(0, request);
      for (int i = 0; i < 100 && cluster.outcome(1_000_000) == null; i++) {
        cluster.advance(ROUND_TIMEOUT_NANOS / 50);
      }
      assertNotNull(cluster.outcome(1_000_000), "answered (by the bounded delay at the latest)");
    }
    assertInstanceOf(Outcome.Written.class, run(new Operation.Cas(K, v, V)));
  }

  /** What a uint64 field decodes to once the transport refused the negative (above 2^63-1) ones. */
  @Provide
  Arbitrary<Long> nonNegativeExtremes() {
    return Arbitraries.oneOf(
        Arbitraries.of(0L, 1L, MAX - 1, MAX, MAX + 1, Long.MAX_VALUE - 1, Long.MAX_VALUE),
        Arbitraries.longs().between(0, Long.MAX_VALUE));
  }

  @Property(tries = 300)
  void peerMessage_isRefusedOrProcessed(
      @ForAll("nonNegativeExtremes") long anyRound,
      @ForAll("nonNegativeExtremes") long epoch,
      @ForAll("nonNegativeExtremes") long timestamp,
      @ForAll("nonNegativeExtremes") long term) {
    cluster = freshCluster();
    long round = Math.max(1, anyRound); // round 0 is ⊥, which the Ballot record keeps to itself
    Ballot ballot = new Ballot(round, 1, 1);
    AcceptedValue value = AcceptedValue.live(epoch, timestamp, ballot, V, false);
    RoundId r = new RoundId(1, 1, 1);
    List<Message> messages =
        List.of(
            new Message.Prepare(OTHER, r, ballot, term),
            new Message.Accept(OTHER, r, value, term),
            new Message.Commit(OTHER, value.withChosen(true)),
            new Message.Promise(OTHER, r, ballot, ballot, value),
            new Message.Reject(OTHER, r, ballot, ballot, value),
            new Message.StaleTerm(OTHER, r, term));
    boolean roundOut = round > MAX;
    boolean valueOut = roundOut || epoch > MAX || timestamp > MAX;
    boolean termOut = term > MAX;
    boolean[] out = {
      roundOut || termOut, valueOut || termOut, valueOut, valueOut, valueOut, termOut
    };
    for (int i = 0; i < messages.size(); i++) {
      Input input = new Input.Receive(1, messages.get(i));
      if (out[i]) {
        refused(0, input);
      } else {
        cluster.input(0, input);
      }
    }
    create(K);
  }
}
