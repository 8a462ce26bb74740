package io.frsm.server.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.frsm.api.Version;
import io.frsm.cell.AcceptedValue;
import io.frsm.cell.Ballot;
import io.frsm.cell.Key;
import io.frsm.client.RequestLimits;
import io.frsm.consensus.core.CoreConfig;
import io.frsm.consensus.core.InputBounds;
import io.frsm.consensus.core.Message;
import io.frsm.consensus.core.Operation;
import io.frsm.consensus.core.Outcome;
import io.frsm.consensus.core.Placement;
import io.frsm.consensus.core.RangeTerm;
import io.frsm.consensus.core.RoundId;
import io.frsm.lsm.LsmConfig;
import io.frsm.lsm.LsmEngine;
import io.frsm.lsm.io.NioFileSystem;
import io.frsm.store.CachingCellStore;
import io.frsm.store.LsmCellStore;
import io.frsm.transport.CoreOperations;
import io.frsm.transport.PeerTransport;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.lifecycle.BeforeProperty;

/**
 * A node's admission of client operations and peer messages, and its core shards behind it, at
 * extreme and random field values (docs/formats/wire.md "Validated ranges", docs/OPERATIONS.md
 * "Failure policy"): each input is refused or served, no exception escapes, the node never turns
 * fatal — also when an input skips the edge's checks and reaches the core (a missed edge check),
 * which then refuses it before changing anything.
 */
class EdgeAdmissionTest {
  private static final long MAX = InputBounds.MAX_NUMBER;
  private static final Duration ANSWER = Duration.ofSeconds(30);
  private static final byte[] V = "v".getBytes(StandardCharsets.US_ASCII);
  private static final InvocationWindow WINDOW =
      InvocationWindow.of(CoreConfig.DEFAULT_BOUNDED_DELAY, Duration.ofMillis(250));

  private Path dir;
  private LsmEngine engine;
  private CoreShards shards;
  private final AtomicReference<Throwable> fatal = new AtomicReference<>();
  private final RequestLimits limits = RequestLimits.DEFAULTS;
  private int keys;

  /** Node 1 alone (a replica set of one: its own quorum), one shard, on a thread of its own. */
  @BeforeProperty
  void start() throws Exception {
    dir = Files.createTempDirectory("edge-admission");
    engine =
        LsmEngine.open(
            LsmConfig.builder(dir).build(), NioFileSystem.INSTANCE, new SimpleMeterRegistry());
    shards =
        new CoreShards(
            1,
            1,
            CoreConfig.defaults(Placement.single(List.of(1))),
            1,
            new CachingCellStore(new LsmCellStore(engine), 1 << 20),
            engine,
            new DroppingTransport(),
            TimeUnit.MILLISECONDS.toNanos(1),
            new PeerMessageCounts(List.of()),
            List.of(),
            fatal::set,
            java.time.Duration.ZERO,
            new RangeQuorums(),
            AcceptorSilence.NEVER);
    shards.start();
  }

  @AfterProperty
  void stop() throws Exception {
    shards.stop();
    engine.close();
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  @Provide
  Arbitrary<Long> extremes() {
    long now = nowMicros();
    return Arbitraries.oneOf(
        Arbitraries.of(
            Long.MIN_VALUE,
            -1L,
            0L,
            1L,
            MAX - 1,
            MAX,
            MAX + 1,
            Long.MAX_VALUE - 1,
            Long.MAX_VALUE,
            now,
            now + TimeUnit.DAYS.toMicros(1)),
        Arbitraries.longs());
  }

  private Outcome run(Operation op, long tau) throws Exception {
    return shards.submit(op, tau).get(ANSWER.toSeconds(), TimeUnit.SECONDS).outcome();
  }

  private Key freshKey() {
    return Key.of(("key-" + keys++).getBytes(StandardCharsets.US_ASCII));
  }

  private void stillServes() throws Exception {
    assertNull(fatal.get(), "no fatal error");
    assertTrue(shards.serving(), "the shards serve");
    Key key = freshKey();
    Version v =
        assertInstanceOf(Outcome.Written.class, run(new Operation.Create(key, V), nowMicros()))
            .version();
    assertInstanceOf(Outcome.Written.class, run(new Operation.Cas(key, v, V), nowMicros()));
  }

  @Property(tries = 200)
  void casOfAnyTimeAndVersion_isRefusedOrAnswered_andTheNodeServes(
      @ForAll("extremes") long tau,
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp)
      throws Exception {
    Key key = freshKey();
    Version v =
        assertInstanceOf(Outcome.Written.class, run(new Operation.Create(key, V), nowMicros()))
            .version();
    long e = epoch < 0 ? v.epoch() : epoch; // the Version record refuses negative fields itself
    long t = timestamp < 0 ? v.timestamp() : timestamp;
    Operation cas = new Operation.Cas(key, new Version(e, t), V);
    // What a node's admission decides (OperationRouter.onClientRequest; τ < 0 cannot be decoded).
    String refusal = tau < 0 ? "undecodable" : limits.refusal(CoreOperations.toClient(cas));
    if (refusal == null) {
      refusal = WINDOW.refusal(tau, nowMicros());
    }
    boolean outOfBounds = tau < 0 || tau > MAX || e > MAX || t >= MAX;
    if (outOfBounds) {
      assertTrue(refusal != null, "admission refuses what the core would");
    }
    if (refusal == null) {
      Outcome served = run(cas, tau == 0 ? nowMicros() : tau);
      assertTrue(served != null, "answered");
    }
    // A missed edge check: the same operation straight to the core is answered, never fatal.
    Outcome direct = run(cas, tau);
    if (outOfBounds) {
      Outcome.NotExecuted refused = assertInstanceOf(Outcome.NotExecuted.class, direct);
      assertTrue(refused.reason().contains("refused"), refused.reason());
    }
    stillServes();
  }

  @Property(tries = 200)
  void peerMessageOfAnyNumbers_isDroppedOrProcessed_andTheNodeServes(
      @ForAll("extremes") long round,
      @ForAll("extremes") long epoch,
      @ForAll("extremes") long timestamp,
      @ForAll int range) {
    Key key = freshKey();
    Ballot ballot = new Ballot(round < 1 ? 1 : round, 2, 1);
    AcceptedValue value =
        AcceptedValue.live(Math.max(0, epoch), Math.max(0, timestamp), ballot, V, true);
    RoundId r = new RoundId(2, 1, 1);
    List<Message> messages =
        List.of(
            new Message.Prepare(key, r, ballot, 0),
            new Message.Accept(key, r, value.withChosen(false), 0),
            new Message.Commit(key, value),
            new Message.Commit(RangeTerm.cellKey(0), value),
            new Message.TermPersist(
                RangeTerm.cellKey(Math.abs(range % 1000)), r, Math.abs(range % 1000), 1));
    long before = shards.refusedPeerMessages();
    for (Message m : messages) {
      shards.receive(2, m);
    }
    Await.until(() -> shards.queueDepth() == 0, ANSWER, "the shard to take every message in");
    assertTrue(shards.refusedPeerMessages() > before, "at least the term-cell commit was dropped");
    try {
      stillServes();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Property(tries = 50)
  void peerMessageAboveTheStorageLimits_isDropped(@ForAll("sizes") int valueBytes) {
    Key key = freshKey();
    AcceptedValue value =
        AcceptedValue.live(1, 0, new Ballot(nowMicros(), 2, 1), new byte[valueBytes], true);
    long before = shards.refusedPeerMessages();
    shards.receive(2, new Message.Commit(key, value));
    boolean tooLarge = valueBytes > limits.maxValueBytes();
    Await.until(() -> shards.queueDepth() == 0, ANSWER, "the shard to take the message in");
    assertEquals(tooLarge ? before + 1 : before, shards.refusedPeerMessages());
    assertNull(fatal.get(), "a persist the engine would refuse never reached it");
  }

  @Provide
  Arbitrary<Integer> sizes() {
    int limit = RequestLimits.DEFAULTS.maxValueBytes();
    return Arbitraries.of(0, 1, limit - 1, limit, limit + 1, 2 * limit);
  }

  private static long nowMicros() {
    return TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
  }

  /** Nothing here reaches a peer: a send is dropped. */
  private static final class DroppingTransport implements PeerTransport {
    @Override
    public boolean send(int nodeId, Message message) {
      return false;
    }

    @Override
    public void close() {}
  }
}
